// The largest session the engine writes to. Its caches are bounded in weighed entries (an entry
// weighs one, plus one per 2,048 characters of its text); a session heavier than a cache is not
// kept by it, so every command on it would read and fold the whole stream again, holding the
// event loop for seconds and the heap for the session's size. Appends and imports that would
// take a session past `STRATA_MAX_SESSION_ENTRIES` are refused instead, whole (labels too: each
// is small, but enough of them would make any session heavier than the caches).
import type { SessionState } from '@strata/session';

/** The default bound: as heavy as one cache's default bound (about 512 MB of text). */
export const DEFAULT_MAX_SESSION_ENTRIES = 250_000;

/** An append or an HTTP import would make the session heavier than the engine's bound. Nothing was written. */
export class SessionTooLargeError extends Error {
  override readonly name = 'SessionTooLargeError';

  constructor(
    readonly sessionId: string,
    readonly weight: number,
    readonly maxWeight: number,
  ) {
    super(
      `session ${sessionId} would weigh ${weight} entries (an entry counts once, plus once per 2,048 characters ` +
        `of its text), more than the ${maxWeight} this engine keeps a session to (STRATA_MAX_SESSION_ENTRIES); ` +
        'nothing was written: continue in a new session',
    );
  }
}

/** Throws `SessionTooLargeError` unless `state` can take entries weighing `addedWeight` more. */
export function requireRoomFor(
  sessionId: string,
  state: SessionState,
  addedWeight: number,
  maxWeight: number,
): void {
  const weight = (state.status === 'active' ? state.weight : 0) + addedWeight;
  if (weight > maxWeight) throw new SessionTooLargeError(sessionId, weight, maxWeight);
}
