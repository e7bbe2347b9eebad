// How a compaction attempt ended, as the append's answer and the context read's `compactionWait`
// tell a host (issue 25, pure): its outcome (null while it is open), why it did not compact,
// and whether the engine asks for the failed request to be sent again. And which attempts a wait
// reports: besides those it saw open or starting, the compactions of the session's latest
// message (prepared at it or at an entry after it on the current path), so that one that ended
// before the host began to wait — a recovery skipped as `nothing_to_summarize` ends at once — is
// told too.
import type { ActiveSessionState, CompactionAttempt, CompactionTrigger } from '@strata/session';

/** One compaction attempt and how it ended. */
export interface CompactionReport {
  readonly attemptId: string;
  readonly trigger: CompactionTrigger;
  /** Null while the attempt is open (or, in an append's answer, not started yet). */
  readonly outcome: 'completed' | 'skipped' | 'cancelled' | 'failed' | null;
  /** Why a skipped or cancelled attempt did not compact; a failed one's error code (else its message). */
  readonly reason: string | null;
  /** True when the attempt completed after a failed answer: the failed request is to be sent again. */
  readonly willRetry: boolean;
  /** The compaction entry a completed attempt appended. */
  readonly entryId: string | null;
}

/** The report of an attempt the state holds. */
export function compactionReportOf(attempt: CompactionAttempt): CompactionReport {
  const base = { attemptId: attempt.attemptId, trigger: attempt.started.trigger };
  const { outcome } = attempt;
  if (outcome === null) return { ...base, outcome: null, reason: null, willRetry: false, entryId: null };
  switch (outcome.type) {
    case 'CompactionCompleted':
      return {
        ...base,
        outcome: 'completed',
        reason: null,
        willRetry: base.trigger === 'overflow',
        entryId: outcome.data.entryId,
      };
    case 'CompactionSkipped':
      return { ...base, outcome: 'skipped', reason: outcome.data.reason, willRetry: false, entryId: null };
    case 'CompactionCancelled':
      return { ...base, outcome: 'cancelled', reason: outcome.data.reason, willRetry: false, entryId: null };
    case 'CompactionFailed': {
      const reason = outcome.data.error.code ?? outcome.data.error.message;
      return { ...base, outcome: 'failed', reason, willRetry: false, entryId: null };
    }
    default: {
      const unhandled: never = outcome;
      throw new Error(`unhandled compaction outcome ${JSON.stringify(unhandled)}`);
    }
  }
}

/** The report of `attemptId`, or undefined when the state holds no compaction attempt of that id. */
export function compactionReportById(
  state: ActiveSessionState,
  attemptId: string,
): CompactionReport | undefined {
  const attempt = state.getAttempt(attemptId);
  return attempt?.kind === 'compaction' ? compactionReportOf(attempt) : undefined;
}

/**
 * The compaction attempts of the session's latest message: those prepared at the newest message
 * on the current path or at an entry after it (a compaction entry, metadata), in start order.
 */
export function latestMessageCompactionIds(state: ActiveSessionState): string[] {
  const path = state.currentPath();
  let newestMessage = path.length - 1;
  while (newestMessage >= 0 && path[newestMessage]?.type !== 'message') newestMessage -= 1;
  if (newestMessage < 0) return [];
  const since = new Set(path.slice(newestMessage).map((entry) => entry.id));
  return state
    .attempts()
    .filter(
      (attempt) =>
        attempt.kind === 'compaction' &&
        attempt.started.preparedAtLeafId !== null &&
        since.has(attempt.started.preparedAtLeafId),
    )
    .map((attempt) => attempt.attemptId);
}
