// Event data and metadata are JSON: serialised once on append (bigints and other non-JSON
// values are refused there) and handed out read-only.
import { splicedJson } from './known-encodings';
import { storedTextString, type StoredText } from './stored-text';

/**
 * JSON text of a value to store, or a TypeError naming what was not JSON: UTF-8 parts where a
 * member's text was worked out off the event loop (known-encodings.ts), a string otherwise.
 */
export function toStoredJson(value: unknown, what: string): StoredText {
  let text: StoredText | undefined;
  try {
    text = splicedJson(value) ?? JSON.stringify(value);
  } catch (error) {
    throw new TypeError(
      `${what} is not JSON-serialisable: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (text === undefined) throw new TypeError(`${what} is not JSON-serialisable`);
  return text;
}

/** JSON text of a value, or a TypeError naming what was not JSON. */
export function toJsonText(value: unknown, what: string): string {
  return storedTextString(toStoredJson(value, what));
}

/** Parses stored JSON text that the store itself wrote. */
export function fromJsonText(text: string): unknown {
  return JSON.parse(text) as unknown;
}

/** Freezes a parsed JSON value and everything inside it. */
export function deepFreeze<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** A JSON object (metadata) read back from text; anything else becomes `{}`. */
export function toJsonRecord(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Readonly<Record<string, unknown>>)
    : {};
}
