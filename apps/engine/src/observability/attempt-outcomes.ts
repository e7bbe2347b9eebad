// What a terminal attempt event contributes to the metrics: kind, trigger, outcome and
// duration. Terminal events carry the trigger and the duration the engine measured; outcomes
// stored before they did fall back to the attempt's start: its trigger, and the time from its
// start (as the engine stamped it) to when the store recorded the outcome.
import type { ProjectedEvent } from '@strata/projections';
import type { CompactionTrigger } from '@strata/session';
import type { AttemptStart } from '../events-stream/public-events';

export type AttemptOutcomeName = 'completed' | 'skipped' | 'cancelled' | 'failed';

export interface EndedAttempt {
  readonly kind: 'compaction' | 'branch_summary';
  readonly attemptId: string;
  readonly outcome: AttemptOutcomeName;
  /** Compactions: the trigger of the attempt (`unknown` when its start was not found). */
  readonly trigger: CompactionTrigger | 'unknown';
  /** Seconds, or undefined when it cannot be told. */
  readonly seconds: number | undefined;
}

/** The attempt a terminal event ends, with what is known before looking up its start. */
export function endedAttemptOf(
  projected: ProjectedEvent,
):
  | { readonly kind: EndedAttempt['kind']; readonly attemptId: string; readonly outcome: AttemptOutcomeName }
  | undefined {
  const { event } = projected;
  switch (event.type) {
    case 'CompactionCompleted':
      return { kind: 'compaction', attemptId: event.data.attemptId, outcome: 'completed' };
    case 'CompactionSkipped':
      return { kind: 'compaction', attemptId: event.data.attemptId, outcome: 'skipped' };
    case 'CompactionCancelled':
      return { kind: 'compaction', attemptId: event.data.attemptId, outcome: 'cancelled' };
    case 'CompactionFailed':
      return { kind: 'compaction', attemptId: event.data.attemptId, outcome: 'failed' };
    case 'BranchSummaryCompleted':
      return { kind: 'branch_summary', attemptId: event.data.attemptId, outcome: 'completed' };
    case 'BranchSummarySkipped':
      return { kind: 'branch_summary', attemptId: event.data.attemptId, outcome: 'skipped' };
    case 'BranchSummaryCancelled':
      return { kind: 'branch_summary', attemptId: event.data.attemptId, outcome: 'cancelled' };
    case 'BranchSummaryFailed':
      return { kind: 'branch_summary', attemptId: event.data.attemptId, outcome: 'failed' };
    case 'SessionStarted':
    case 'EntryAppended':
    case 'LeafMoved':
    case 'ToolOutputsPruned':
    case 'CompactionStarted':
    case 'BranchSummaryStarted':
    case 'ContinuationRequested':
      return undefined;
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled session event ${JSON.stringify(unhandled)}`);
    }
  }
}

/** The trigger and duration the terminal event carries itself (older outcomes carry neither). */
export function factsOfOutcome(projected: ProjectedEvent): {
  readonly trigger: CompactionTrigger | undefined;
  readonly durationMs: number | undefined;
} {
  const { event } = projected;
  switch (event.type) {
    case 'CompactionCompleted':
    case 'CompactionSkipped':
    case 'CompactionCancelled':
    case 'CompactionFailed':
      return { trigger: event.data.trigger, durationMs: event.data.durationMs };
    case 'BranchSummaryCompleted':
    case 'BranchSummarySkipped':
    case 'BranchSummaryCancelled':
    case 'BranchSummaryFailed':
      return { trigger: undefined, durationMs: event.data.durationMs };
    case 'SessionStarted':
    case 'EntryAppended':
    case 'LeafMoved':
    case 'ToolOutputsPruned':
    case 'CompactionStarted':
    case 'BranchSummaryStarted':
    case 'ContinuationRequested':
      return { trigger: undefined, durationMs: undefined };
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled session event ${JSON.stringify(unhandled)}`);
    }
  }
}

/** Whether the start of the attempt must be read to tell its trigger or duration. */
export function needsAttemptStart(projected: ProjectedEvent): boolean {
  const ended = endedAttemptOf(projected);
  if (ended === undefined) return false;
  const facts = factsOfOutcome(projected);
  return facts.durationMs === undefined || (ended.kind === 'compaction' && facts.trigger === undefined);
}

/** The full record, from the event's own facts, else from the attempt's start (when found). */
export function describeEndedAttempt(
  projected: ProjectedEvent,
  start: AttemptStart | undefined,
): EndedAttempt | undefined {
  const ended = endedAttemptOf(projected);
  if (ended === undefined) return undefined;
  const facts = factsOfOutcome(projected);
  const trigger = facts.trigger ?? (start?.kind === 'compaction' ? start.data.trigger : 'unknown');
  let seconds: number | undefined;
  if (facts.durationMs !== undefined) {
    seconds = facts.durationMs / 1000;
  } else if (start !== undefined) {
    const elapsed = Date.parse(projected.recordedAt) - start.data.startedAt;
    seconds = Number.isFinite(elapsed) ? Math.max(0, elapsed) / 1000 : undefined;
  }
  return { ...ended, trigger, seconds };
}
