// Splitting a JSONL text (or its bytes) into parsed lines. A line's value is `unknown` until a
// schema accepts it; blank lines (including the final newline) carry nothing and are dropped
// here. A line nested deeper than MAX_JSON_DEPTH counts as bad JSON (see json-depth.ts), and
// a line of bytes that is not UTF-8 as `invalid-utf8`.
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';
import { utf8Lines, type Utf8Line } from './utf8-lines';

export type JsonObject = Record<string, unknown>;

export type JsonLine =
  | {
      readonly kind: 'value';
      /** 1-based line number. */
      readonly line: number;
      /** Position among the lines that hold JSON (the header is 0): pi's "file array" index. */
      readonly fileIndex: number;
      readonly value: unknown;
    }
  | {
      readonly kind: 'bad-json';
      readonly line: number;
      readonly code: 'bad-json' | 'invalid-utf8';
      readonly reason: string;
    };

/** A session file as text, or as the bytes read from disk or a request (UTF-8 expected). */
export type SessionFileContent = string | Uint8Array;

function linesOf(content: SessionFileContent): Utf8Line[] {
  if (typeof content !== 'string') return utf8Lines(content);
  return content.split('\n').map((text) => ({ kind: 'text', text }));
}

export function readJsonLines(content: SessionFileContent): JsonLine[] {
  const result: JsonLine[] = [];
  let fileIndex = 0;
  linesOf(content).forEach((decoded, index) => {
    const line = index + 1;
    if (decoded.kind === 'invalid') {
      result.push({ kind: 'bad-json', line, code: 'invalid-utf8', reason: 'the line is not UTF-8 text' });
      return;
    }
    const content = decoded.text;
    if (content.trim() === '') return;
    try {
      const value: unknown = JSON.parse(content);
      if (exceedsJsonDepth(value)) {
        const reason = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
        result.push({ kind: 'bad-json', line, code: 'bad-json', reason });
        return;
      }
      result.push({ kind: 'value', line, fileIndex, value });
      fileIndex += 1;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      result.push({ kind: 'bad-json', line, code: 'bad-json', reason: `invalid JSON: ${detail}` });
    }
  });
  return result;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of `object` where `key` holds `value`: in place when the key exists, otherwise right
 * after `afterKey` (or at the end). Keeps the file's key order readable after a migration.
 */
export function withKey(object: JsonObject, key: string, value: unknown, afterKey?: string): JsonObject {
  if (Object.hasOwn(object, key) || afterKey === undefined || !Object.hasOwn(object, afterKey)) {
    return { ...object, [key]: value };
  }
  return Object.fromEntries(
    Object.entries(object).flatMap(([existingKey, existingValue]) =>
      existingKey === afterKey
        ? [
            [existingKey, existingValue],
            [key, value],
          ]
        : [[existingKey, existingValue]],
    ),
  );
}

/** A copy of `object` with `oldKey` replaced, at the same position, by `newKey: value`. */
export function withRenamedKey(
  object: JsonObject,
  oldKey: string,
  newKey: string,
  value: unknown,
): JsonObject {
  return Object.fromEntries(
    Object.entries(object).flatMap(([existingKey, existingValue]) => {
      if (existingKey === oldKey) return [[newKey, value]];
      return existingKey === newKey ? [] : [[existingKey, existingValue]];
    }),
  );
}
