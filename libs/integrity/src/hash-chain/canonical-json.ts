// Canonical JSON for hashing: the value as JSON would carry it (toJSON applied, undefined
// members dropped), object keys sorted by code unit at every depth, no whitespace. Equal JSON
// content gives equal text whatever the key order or formatting it was stored with.
//
// One walk of the value writes the text: each string is escaped once (by JSON.stringify of that
// string alone) into a string built by concatenation (V8 keeps it as a rope until it is hashed),
// so an event carrying megabytes of text costs one escaping pass over those bytes instead of the
// three of a stringify, parse and re-stringify (a one-off timing, not a bench in bench/, saw
// about 4x on 8 MB of text and 2x on 2,000 small entries).
import { createHash } from 'node:crypto';

/** Canonical JSON text of a JSON-serialisable value (throws a TypeError for bigints and the like). */
export function canonicalJson(value: unknown): string {
  const text = writeValue(value, '', []);
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form');
  return text;
}

/**
 * The canonical text of `value` (the member `key` of its holder); undefined when JSON has no
 * form for it (undefined, a function or a symbol), which a holder then drops (an object) or
 * writes as null (an array), as JSON.stringify does.
 */
function writeValue(value: unknown, key: string, ancestors: object[]): string | undefined {
  const own = withToJson(value, key);
  switch (typeof own) {
    case 'string':
      return JSON.stringify(own);
    case 'number':
      return Number.isFinite(own) ? JSON.stringify(own) : 'null';
    case 'boolean':
      return own ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('canonicalJson: a bigint has no JSON form');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      return own === null ? 'null' : writeObject(own, ancestors);
  }
}

/** The value JSON.stringify would write for `value`: its toJSON(key) result when it has one. */
function withToJson(value: unknown, key: string): unknown {
  if (typeof value === 'object' && value !== null) {
    const toJson = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJson === 'function') return (toJson as (key: string) => unknown).call(value, key);
  }
  return value;
}

function writeObject(value: object, ancestors: object[]): string | undefined {
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    // Boxed primitives: JSON writes the primitive they hold.
    return writeValue(value.valueOf(), '', ancestors);
  }
  if (ancestors.includes(value)) throw new TypeError('canonicalJson: the value is circular');
  ancestors.push(value);
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) text += ',';
      text += writeValue(value[index], String(index), ancestors) ?? 'null';
    }
    text += ']';
  } else {
    const record = value as Record<string, unknown>;
    text = '{';
    let first = true;
    for (const key of Object.keys(record).sort()) {
      const member = writeValue(record[key], key, ancestors);
      if (member === undefined) continue;
      text += `${first ? '' : ','}${JSON.stringify(key)}:${member}`;
      first = false;
    }
    text += '}';
  }
  ancestors.pop();
  return text;
}

/** Lower-case hexadecimal SHA-256 of the UTF-8 text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
