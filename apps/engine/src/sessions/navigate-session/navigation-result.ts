// What a NavigateSession command comes to.
import {
  isFromExtension,
  type ActiveSessionState,
  type AttemptError,
  type BranchSummaryAttempt,
  type BranchSummaryEntry,
  type Usage,
} from '@strata/session';

interface NavigationBase {
  readonly sessionId: string;
  readonly targetId: string;
  /** The leaf before the command. */
  readonly oldLeafId: string | null;
  /** The leaf after the command (unchanged unless the outcome is `navigated`). */
  readonly leafId: string | null;
}

export interface Navigated extends NavigationBase {
  readonly outcome: 'navigated';
  /** The text of a user or custom message target, offered for re-editing (its parent became the leaf). */
  readonly editorText?: string;
  readonly summary?: {
    readonly attemptId: string;
    readonly entry: BranchSummaryEntry;
    readonly fromExtension: boolean;
    readonly model?: string;
    readonly usage?: Usage;
  };
  /** Why no summary was written although one was asked for. */
  readonly summaryDeclined?: 'disabled' | 'nothing_to_summarize';
  /** True when the attempt had already ended before this command (nothing was written). */
  readonly redelivered?: boolean;
}

/** The target is the current leaf: nothing to do. */
export interface NavigationUnchanged extends NavigationBase {
  readonly outcome: 'unchanged';
}

export interface NavigationCancelled extends NavigationBase {
  readonly outcome: 'cancelled';
  /** `aborted`, or `cancelled by a session_before_tree hook`. */
  readonly reason: string;
  readonly attemptId?: string;
}

/** The summary could not be attached: the leaf moved while it was written. */
export interface NavigationSkipped extends NavigationBase {
  readonly outcome: 'skipped';
  readonly reason: string;
  readonly attemptId: string;
}

export interface NavigationFailed extends NavigationBase {
  readonly outcome: 'failed';
  readonly error: AttemptError;
  readonly attemptId: string;
}

export type NavigationResult =
  Navigated | NavigationUnchanged | NavigationCancelled | NavigationSkipped | NavigationFailed;

export const TREE_HOOK_CANCELLED_REASON = 'cancelled by a session_before_tree hook';

/**
 * The result of a branch-summary attempt that has ended, read back from the session state. Read
 * for a repeat (`redelivered`), the leaf is the one the attempt left, whatever happened to the
 * session since: a completed attempt moved it to its summary entry, any other left it where
 * navigation began. Otherwise it is the current leaf, which the attempt has just left so.
 */
export function resultOfEndedSummary(
  base: Omit<NavigationBase, 'leafId' | 'oldLeafId'>,
  attempt: BranchSummaryAttempt,
  state: ActiveSessionState,
  redelivered: boolean,
): NavigationResult | undefined {
  const outcome = attempt.outcome;
  if (outcome === null) return undefined;
  const { oldLeafId } = attempt.started;
  const leftBy = outcome.type === 'BranchSummaryCompleted' ? outcome.data.entryId : oldLeafId;
  const leafId = redelivered ? leftBy : state.leafId;
  const where = { ...base, oldLeafId, leafId };
  const { attemptId } = attempt;
  switch (outcome.type) {
    case 'BranchSummaryCompleted': {
      const entry = state.getEntry(outcome.data.entryId);
      if (entry?.type !== 'branch_summary') return undefined;
      const { model, usage } = outcome.data;
      return {
        ...where,
        outcome: 'navigated',
        summary: {
          attemptId,
          entry,
          fromExtension: isFromExtension(entry),
          ...(model !== undefined ? { model } : {}),
          ...(usage !== undefined ? { usage } : {}),
        },
        redelivered,
      };
    }
    case 'BranchSummarySkipped':
      return { ...where, outcome: 'skipped', reason: outcome.data.reason, attemptId };
    case 'BranchSummaryCancelled':
      return { ...where, outcome: 'cancelled', reason: outcome.data.reason, attemptId };
    case 'BranchSummaryFailed':
      return { ...where, outcome: 'failed', error: outcome.data.error, attemptId };
    default: {
      const unhandled: never = outcome;
      throw new Error(`unhandled branch-summary outcome ${JSON.stringify(unhandled)}`);
    }
  }
}
