// A compaction attempt as the CompactSession command runs it: what to run, and what it comes to —
// exactly one of the four terminal outcomes the session stream records.
import {
  isFromExtension,
  type ActiveSessionState,
  type AttemptError,
  type CompactionAttempt,
  type CompactionEntry,
  type CompactionTrigger,
  type Usage,
} from '@strata/session';
import type { WhenRunningElsewhere } from '../../attempts/attempts-elsewhere';
import type { CommandContext } from '../../shared/command-context';

/** One compaction attempt to run. */
export interface CompactRequest {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly trigger: CompactionTrigger;
  readonly customInstructions?: string;
  /** Keep less rather than skip when the context fits in the keep budget (`prepareCompaction`'s `force`). */
  readonly force?: boolean;
  /**
   * When another engine on the store is running this attempt: `wait` for its outcome (the
   * default), or `leave` it to that engine (`AttemptRunningElsewhereError`; sagas).
   */
  readonly whenRunningElsewhere?: WhenRunningElsewhere;
  /**
   * Who the attempt runs for: the tenant (its share of the summary slots; `default` when absent)
   * and the actor its events record (the engine when absent: a saga's attempt).
   */
  readonly context?: CommandContext;
  /**
   * The leaf the automatic check point saw (a saga's view): when the session's leaf is another
   * one by the time the attempt prepares, it ends skipped as stale without a summary.
   */
  readonly atLeafId?: string | null;
}

interface OutcomeBase {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly trigger: CompactionTrigger;
  /** True when the attempt had already ended before this command (nothing was written). */
  readonly redelivered: boolean;
}

export interface CompactionCompleted extends OutcomeBase {
  readonly outcome: 'completed';
  readonly entry: CompactionEntry;
  readonly fromExtension: boolean;
  readonly model?: string;
  readonly usage?: Usage;
  readonly durationMs: number;
  readonly tokensBefore: number;
  readonly estimatedTokensAfter: number;
}

export interface CompactionSkippedResult extends OutcomeBase {
  readonly outcome: 'skipped';
  /** `already_compacted`, `nothing_to_summarize`, `stale` or `disabled`. */
  readonly reason: string;
}

export interface CompactionCancelledResult extends OutcomeBase {
  readonly outcome: 'cancelled';
  /** `aborted`, or `cancelled by a session_before_compact hook`. */
  readonly reason: string;
}

export interface CompactionFailedResult extends OutcomeBase {
  readonly outcome: 'failed';
  readonly error: AttemptError;
}

export type CompactionResult =
  CompactionCompleted | CompactionSkippedResult | CompactionCancelledResult | CompactionFailedResult;

export const ABORTED_REASON = 'aborted';
export const HOOK_CANCELLED_REASON = 'cancelled by a session_before_compact hook';
export const STALE_REASON = 'stale';
export const DISABLED_REASON = 'disabled';

/** The result of an attempt that has ended, read back from the session state. */
export function resultOfEndedAttempt(
  sessionId: string,
  attempt: CompactionAttempt,
  state: ActiveSessionState,
  redelivered: boolean,
): CompactionResult | undefined {
  const outcome = attempt.outcome;
  if (outcome === null) return undefined;
  const base = { sessionId, attemptId: attempt.attemptId, trigger: attempt.started.trigger, redelivered };
  switch (outcome.type) {
    case 'CompactionCompleted': {
      const entry = state.getEntry(outcome.data.entryId);
      if (entry?.type !== 'compaction') return undefined;
      const { model, usage, durationMs, tokensBefore, estimatedTokensAfter } = outcome.data;
      return {
        ...base,
        outcome: 'completed',
        entry,
        fromExtension: isFromExtension(entry),
        ...(model !== undefined ? { model } : {}),
        ...(usage !== undefined ? { usage } : {}),
        durationMs,
        tokensBefore,
        estimatedTokensAfter,
      };
    }
    case 'CompactionSkipped':
      return { ...base, outcome: 'skipped', reason: outcome.data.reason };
    case 'CompactionCancelled':
      return { ...base, outcome: 'cancelled', reason: outcome.data.reason };
    case 'CompactionFailed':
      return { ...base, outcome: 'failed', error: outcome.data.error };
    default: {
      const unhandled: never = outcome;
      throw new Error(`unhandled compaction outcome ${JSON.stringify(unhandled)}`);
    }
  }
}
