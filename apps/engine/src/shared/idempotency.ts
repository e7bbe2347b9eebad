// Idempotent writes (issue 11, finding 2). A write made idempotent by a caller's key or id
// records a digest of what it asked; the same key or id later with the same content answers the
// first outcome, and with other content is refused with `IdempotencyMismatchError` (409
// `conflict`, `reason: idempotency_mismatch`), as payment APIs answer a reused key.
import { canonicalSha256Hex } from '@strata/integrity';

/** SHA-256 of the canonical JSON of `content`: equal content gives an equal digest. */
export function requestDigestOf(content: unknown): string {
  return canonicalSha256Hex(content);
}

/** What makes a write idempotent: the caller's key or id, named as the API names it. */
export type IdempotencyHandle = 'idempotencyKey' | 'sessionId' | 'attemptId';

/** A key or id already used for a request with other content; nothing was written. */
export class IdempotencyMismatchError extends Error {
  override readonly name = 'IdempotencyMismatchError';

  constructor(
    readonly handle: IdempotencyHandle,
    readonly value: string,
    /** What the first request that used it was, in a few words ("other entries"). */
    difference: string,
  ) {
    super(`${handle} ${JSON.stringify(value)} was first used for ${difference}`);
  }
}

/** Throws `IdempotencyMismatchError` unless `recorded` is undefined (not known) or equals `requested`. */
export function requireSameRequest(
  recorded: string | undefined,
  requested: string,
  mismatch: () => IdempotencyMismatchError,
): void {
  if (recorded !== undefined && recorded !== requested) throw mismatch();
}
