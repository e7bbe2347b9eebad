// Canonical JSON for hashing: the value as JSON would carry it (toJSON applied, undefined
// members dropped), object keys sorted by code unit at every depth, no whitespace. Equal JSON
// content gives equal text whatever the key order or formatting it was stored with.
import { createHash } from 'node:crypto';

/** Canonical JSON text of a JSON-serialisable value (throws a TypeError for bigints and the like). */
export function canonicalJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form');
  return writeCanonical(JSON.parse(text) as unknown);
}

function writeCanonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(writeCanonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${writeCanonical(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Lower-case hexadecimal SHA-256 of the UTF-8 text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
