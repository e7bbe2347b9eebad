// Canonical JSON for hashing: the value as JSON would carry it (toJSON applied, undefined
// members dropped), object keys sorted by code unit at every depth, no whitespace. Equal JSON
// content gives equal text whatever the key order or formatting it was stored with.
//
// One walk of the value writes the text: each string is escaped once (by JSON.stringify of that
// string alone) into a string built by concatenation (V8 keeps it as a rope until it is hashed),
// so an event carrying megabytes of text costs one escaping pass over those bytes instead of the
// three of a stringify, parse and re-stringify (a one-off timing, not a bench in bench/, saw
// about 4x on 8 MB of text and 2x on 2,000 small entries).
//
// `canonicalJsonParts` gives the same text in parts: where it meets a value whose canonical UTF-8
// is already known (@strata/event-store known-encodings.ts), that part is those bytes, and the
// value is not walked. A raw NUL character never occurs in canonical text (JSON escapes it in
// strings and keys), so a part is first marked in the text by its index between two NULs.
import { knownEncodingOf } from '@strata/event-store';
import { createHash } from 'node:crypto';

/** Canonical JSON text of a JSON-serialisable value (throws a TypeError for bigints and the like). */
export function canonicalJson(value: unknown): string {
  const text = writeValue(value, '', []);
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form');
  return text;
}

/**
 * The canonical JSON of `value` as text and bytes in order, whose concatenated UTF-8 is the UTF-8
 * of `canonicalJson(value)`: a value whose canonical bytes are known is that part, unwalked.
 */
export function canonicalJsonParts(value: unknown): (string | Uint8Array)[] {
  const known: Uint8Array[] = [];
  const text = writeValue(value, '', [], known);
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form');
  if (known.length === 0) return [text];
  return text.split('\u0000').map((piece, index) => (index % 2 === 0 ? piece : known[Number(piece)]!));
}

/**
 * The canonical text of `value` (the member `key` of its holder); undefined when JSON has no
 * form for it (undefined, a function or a symbol), which a holder then drops (an object) or
 * writes as null (an array), as JSON.stringify does.
 */
function writeValue(
  value: unknown,
  key: string,
  ancestors: object[],
  known?: Uint8Array[],
): string | undefined {
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
      return own === null ? 'null' : writeObject(own, ancestors, known);
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

function writeObject(value: object, ancestors: object[], known?: Uint8Array[]): string | undefined {
  const encoding = known === undefined ? undefined : knownEncodingOf(value);
  if (encoding !== undefined) {
    known!.push(encoding.canonicalUtf8);
    return `\u0000${known!.length - 1}\u0000`;
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    // Boxed primitives: JSON writes the primitive they hold.
    return writeValue(value.valueOf(), '', ancestors, known);
  }
  if (ancestors.includes(value)) throw new TypeError('canonicalJson: the value is circular');
  ancestors.push(value);
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) text += ',';
      text += writeValue(value[index], String(index), ancestors, known) ?? 'null';
    }
    text += ']';
  } else {
    const record = value as Record<string, unknown>;
    text = '{';
    let first = true;
    for (const key of Object.keys(record).sort()) {
      const member = writeValue(record[key], key, ancestors, known);
      if (member === undefined) continue;
      text += `${first ? '' : ','}${JSON.stringify(key)}:${member}`;
      first = false;
    }
    text += '}';
  }
  ancestors.pop();
  return text;
}

/**
 * `sha256Hex(canonicalJson(value))`, hashing known bytes where a value has them (canonicalJsonParts)
 * instead of walking it again.
 */
export function canonicalSha256Hex(value: unknown): string {
  const hash = createHash('sha256');
  for (const part of canonicalJsonParts(value)) hash.update(part);
  return hash.digest('hex');
}

/** Lower-case hexadecimal SHA-256 of the UTF-8 text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
