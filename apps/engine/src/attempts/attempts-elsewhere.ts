// An attempt that another engine on the same store is running (several engines share the
// store's work, each automatic compaction summarised once): it started in the stream, is not
// running in this process, and has no outcome yet. A caller that only reacts to the stored
// event (a saga) leaves it to that engine; a caller that wants the outcome (a request) waits
// for the outcome to appear in the stream, up to a bound.
import type { ActiveSessionState, SessionAttempt } from '@strata/session';

/** How long a request waits for another engine's attempt to end before it answers a conflict. */
export const ELSEWHERE_WAIT_MS = 10 * 60_000;
/** How often the stream is read while waiting. */
export const ELSEWHERE_POLL_MS = 200;

/** `wait` for the outcome (a request), or `leave` the attempt to the engine running it (a saga). */
export type WhenRunningElsewhere = 'wait' | 'leave';

export class AttemptRunningElsewhereError extends Error {
  override readonly name = 'AttemptRunningElsewhereError';

  constructor(
    readonly sessionId: string,
    readonly attemptId: string,
    /** The engine that started it, when its start records one. */
    readonly engine: string | undefined,
  ) {
    super(
      `attempt ${attemptId} of session ${sessionId} is running on ${engine === undefined ? 'another engine' : `engine ${engine}`}`,
    );
  }
}

/**
 * Reads the session until the attempt has an outcome, every `ELSEWHERE_POLL_MS`; throws
 * `AttemptRunningElsewhereError` when it has none after `waitMs`.
 */
export async function outcomeFromElsewhere(
  read: () => Promise<ActiveSessionState>,
  sessionId: string,
  attemptId: string,
  engine: string | undefined,
  waitMs: number = ELSEWHERE_WAIT_MS,
): Promise<{ readonly state: ActiveSessionState; readonly attempt: SessionAttempt }> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const state = await read();
    const attempt = state.getAttempt(attemptId);
    if (attempt !== undefined && attempt.outcome !== null) return { state, attempt };
    if (Date.now() >= deadline) throw new AttemptRunningElsewhereError(sessionId, attemptId, engine);
    await new Promise((resolve) => setTimeout(resolve, ELSEWHERE_POLL_MS));
  }
}
