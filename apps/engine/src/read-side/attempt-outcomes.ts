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

/** What a terminal event tells of its attempt by itself (outcomes stored before they carried
 * their trigger and duration leave those undefined). */
export interface EndedAttemptFacts {
  readonly kind: EndedAttempt['kind'];
  readonly attemptId: string;
  readonly outcome: AttemptOutcomeName;
  readonly trigger: CompactionTrigger | undefined;
  readonly durationMs: number | undefined;
}

function compactionEnded(
  data: { readonly attemptId: string; readonly trigger?: CompactionTrigger; readonly durationMs?: number },
  outcome: AttemptOutcomeName,
): EndedAttemptFacts {
  return {
    kind: 'compaction',
    attemptId: data.attemptId,
    outcome,
    trigger: data.trigger,
    durationMs: data.durationMs,
  };
}

function branchSummaryEnded(
  data: { readonly attemptId: string; readonly durationMs?: number },
  outcome: AttemptOutcomeName,
): EndedAttemptFacts {
  return {
    kind: 'branch_summary',
    attemptId: data.attemptId,
    outcome,
    trigger: undefined,
    durationMs: data.durationMs,
  };
}

/** The attempt a terminal event ends, with what the event itself says of it. */
export function endedAttemptOf(projected: ProjectedEvent): EndedAttemptFacts | undefined {
  const { event } = projected;
  switch (event.type) {
    case 'CompactionCompleted':
      return compactionEnded(event.data, 'completed');
    case 'CompactionSkipped':
      return compactionEnded(event.data, 'skipped');
    case 'CompactionCancelled':
      return compactionEnded(event.data, 'cancelled');
    case 'CompactionFailed':
      return compactionEnded(event.data, 'failed');
    case 'BranchSummaryCompleted':
      return branchSummaryEnded(event.data, 'completed');
    case 'BranchSummarySkipped':
      return branchSummaryEnded(event.data, 'skipped');
    case 'BranchSummaryCancelled':
      return branchSummaryEnded(event.data, 'cancelled');
    case 'BranchSummaryFailed':
      return branchSummaryEnded(event.data, 'failed');
    case 'SessionStarted':
    case 'EntryAppended':
    case 'LeafMoved':
    case 'ToolOutputsPruned':
    case 'CompactionStarted':
    case 'BranchSummaryStarted':
    case 'ContinuationRequested':
    case 'LeaseTaken':
    case 'LeaseRenewed':
    case 'LeaseReleased':
    case 'LeaseExpired':
      return undefined;
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
  return ended.durationMs === undefined || (ended.kind === 'compaction' && ended.trigger === undefined);
}

/** The full record, from the event's own facts, else from the attempt's start (when found). */
export function describeEndedAttempt(
  projected: ProjectedEvent,
  start: AttemptStart | undefined,
): EndedAttempt | undefined {
  const ended = endedAttemptOf(projected);
  if (ended === undefined) return undefined;
  const trigger = ended.trigger ?? (start?.kind === 'compaction' ? start.data.trigger : 'unknown');
  let seconds: number | undefined;
  if (ended.durationMs !== undefined) {
    seconds = ended.durationMs / 1000;
  } else if (start !== undefined) {
    const elapsed = Date.parse(projected.recordedAt) - start.data.startedAt;
    seconds = Number.isFinite(elapsed) ? Math.max(0, elapsed) / 1000 : undefined;
  }
  return { kind: ended.kind, attemptId: ended.attemptId, outcome: ended.outcome, trigger, seconds };
}
