// Splitting a JSONL text into parsed lines. A line's value is `unknown` until a schema accepts
// it; blank lines (including the final newline) carry nothing and are dropped here.

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
  | { readonly kind: 'bad-json'; readonly line: number; readonly reason: string };

export function readJsonLines(text: string): JsonLine[] {
  const result: JsonLine[] = [];
  let fileIndex = 0;
  text.split('\n').forEach((content, index) => {
    if (content.trim() === '') return;
    const line = index + 1;
    try {
      const value: unknown = JSON.parse(content);
      result.push({ kind: 'value', line, fileIndex, value });
      fileIndex += 1;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      result.push({ kind: 'bad-json', line, reason: `invalid JSON: ${detail}` });
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
