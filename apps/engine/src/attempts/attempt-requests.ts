// A repeated attempt id must name the same request (issue 11, finding 2). An attempt's start
// records a digest of what was asked (trigger and instructions of a compaction; target, summary
// and instructions of a navigation); the same id with the same request returns the attempt's
// recorded outcome, and with another one, or for another kind of attempt, is refused with
// `IdempotencyMismatchError`. Attempts started before the digest existed are compared on what
// their start event holds (the trigger, the target).
import type { SessionAttempt } from '@strata/session';
import type { SessionStreams } from '../session-streams/session-streams.service';
import { IdempotencyMismatchError, requestDigestOf, requireSameRequest } from '../shared/idempotency';
import { attemptStartSeeds } from './attempt-ids';
import type { AttemptKind } from './running-attempts.service';

/** What one attempt asks for, to tell a repeat of it from another request with the same id. */
export interface AttemptRequest {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly kind: AttemptKind;
  readonly requestDigest: string;
}

/** The digest of an attempt's request: its kind and the fields the caller chose. */
export function attemptDigestOf(kind: AttemptKind, fields: Readonly<Record<string, unknown>>): string {
  return requestDigestOf({ kind, ...fields });
}

/**
 * Throws `IdempotencyMismatchError` unless the recorded attempt `existing` is of the request's
 * kind, `sameStart` (the caller's check of what the start event holds) and, when its start
 * recorded a digest, that digest is the request's.
 */
export async function requireSameAttempt(
  streams: SessionStreams,
  request: AttemptRequest,
  existing: SessionAttempt,
  sameStart: boolean,
): Promise<void> {
  const mismatch = () =>
    new IdempotencyMismatchError(
      'attemptId',
      request.attemptId,
      existing.kind === 'compaction'
        ? 'a compaction of another request'
        : 'a branch summary of another request',
    );
  if (existing.kind !== request.kind || !sameStart) throw mismatch();
  const earlier = await streams.earlierWrite(
    request.sessionId,
    attemptStartSeeds(request.sessionId, request.attemptId, request.kind),
  );
  requireSameRequest(earlier?.requestDigest, request.requestDigest, mismatch);
}
