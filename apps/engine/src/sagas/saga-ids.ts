// Ids of what the sagas write, derived from the stored event that triggered them, so a
// redelivered event names the same attempt, pruning and continuation and nothing is written
// twice (DESIGN.md decision 5). They are scoped by session through the trigger: its id names one
// event of one session, no client chooses it, and every id the engine derives from a caller's
// key or id names its session (`sessionIdSeed`), so no seed here can meet another session's. The
// seeds keep the form they had before `sessionIdSeed`, so a trigger delivered again across an
// upgrade still finds the pruning and continuation it wrote (docs/compatibility.md).
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

/** The id seed of the continuation requested after the compaction that `triggerEventId` completed. */
export function continuationSeedOf(triggerEventId: string): string {
  return `saga-continuation:${triggerEventId}`;
}
