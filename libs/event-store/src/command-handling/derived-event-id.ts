// Event ids derived from a seed, so that handling the same command twice proposes the same ids
// and the store's idempotent append refuses to write its events a second time. The id is the
// first 16 bytes of SHA-256(seed, "/", index) shaped as a UUID version 8 (RFC 9562, custom).
import { createHash } from 'node:crypto';

/** A UUID-shaped id that depends only on `seed` and `index`. */
export function derivedEventId(seed: string, index: number): string {
  if (!Number.isInteger(index) || index < 0)
    throw new RangeError(`index must be a natural number, not ${index}`);
  const bytes = createHash('sha256').update(seed).update('/').update(String(index)).digest().subarray(0, 16);
  bytes[6] = 0x80 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const DERIVED_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Whether `id` has the shape of a `derivedEventId` (every derived id has it; other ids may too). */
export function isDerivedEventId(id: string): boolean {
  return DERIVED_ID_PATTERN.test(id);
}
