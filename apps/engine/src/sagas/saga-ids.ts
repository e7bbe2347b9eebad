// Ids of what the sagas write, derived from the stored event that triggered them, so a
// redelivered event names the same attempt, pruning and continuation and nothing is written
// twice (DESIGN.md decision 5).
import { derivedEventId } from '@strata/event-store';
import type { CompactionTrigger } from '@strata/session';
import { attemptIdFromTrigger } from '../attempts/attempt-ids';

/** The attempt id of the automatic compaction triggered by `triggerEventId`. */
export function autoCompactionAttemptId(
  triggerEventId: string,
  trigger: Exclude<CompactionTrigger, 'manual'>,
): string {
  return attemptIdFromTrigger(triggerEventId, `${trigger}-compaction`);
}

/** The id seed of the pruning triggered by `triggerEventId`. */
export function pruningSeedOf(triggerEventId: string): string {
  return `saga-pruning:${triggerEventId}`;
}

/** The store id of the `ToolOutputsPruned` event written for `triggerEventId`. */
export function pruningEventIdOf(triggerEventId: string): string {
  return derivedEventId(pruningSeedOf(triggerEventId), 0);
}

/** The id seed of the continuation requested after the compaction that `triggerEventId` completed. */
export function continuationSeedOf(triggerEventId: string): string {
  return `saga-continuation:${triggerEventId}`;
}
