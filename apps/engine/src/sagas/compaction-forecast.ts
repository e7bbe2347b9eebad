// Which automatic compaction an append asks for (issue 13, pure): the threshold and overflow
// sagas' own rules, evaluated for each appended entry on the session as the append left it, so
// the append's answer can name the attempt (`compaction: {attemptId, trigger}`) the sagas are
// about to start. The attempt id derives from the entry's stored event id, as the saga derives
// it. The threshold rule is asked first whether it may compact at all (no pruning is decided for
// an entry that is no check point or whose context is under the threshold), so an append that
// asks for nothing costs a walk of the path, no more. The sagas react to the session as it is
// when they handle the event: if the host appends again first, the newer entry's check point
// decides instead, and the attempt named here may never start (waiting on the context read,
// `waitForCompaction`, does not depend on it).
import type { CompactionTrigger, SessionEntry } from '@strata/session';
import { overflowRecoveryCommands } from './overflow-recovery.saga';
import type { SagaCommand, SagaSessionView, SagaTrigger } from './saga-messages';
import { mayCompactAtThreshold, thresholdCompactionCommands } from './threshold-compaction.saga';

/** The automatic compaction an append asked for. */
export interface AskedCompaction {
  readonly attemptId: string;
  readonly trigger: Exclude<CompactionTrigger, 'manual'>;
}

/** One appended entry with the id of the event that stored it. */
export interface AppendedEntry {
  readonly eventId: string;
  readonly entry: SessionEntry;
}

function askedIn(commands: readonly SagaCommand[]): AskedCompaction | undefined {
  for (const command of commands) {
    if (command.type === 'AutoCompact') {
      return { attemptId: command.data.attemptId, trigger: command.data.trigger };
    }
  }
  return undefined;
}

/** The automatic compaction the sagas ask for after one appended entry, if any. */
export function compactionAskedAfter(
  trigger: SagaTrigger,
  view: SagaSessionView,
): AskedCompaction | undefined {
  if (mayCompactAtThreshold(trigger, view)) {
    const asked = askedIn(thresholdCompactionCommands(trigger, view));
    if (asked !== undefined) return asked;
  }
  return askedIn(overflowRecoveryCommands(trigger, view));
}

/**
 * The automatic compaction an append of `appended` asks for (the newest entry's first), on the
 * view of the session right after it; undefined when none.
 */
export function compactionAskedBy(
  base: Pick<SagaTrigger, 'sessionId' | 'tenant'>,
  appended: readonly AppendedEntry[],
  view: SagaSessionView,
): AskedCompaction | undefined {
  for (const { eventId, entry } of [...appended].reverse()) {
    if (entry.type !== 'message') continue;
    const trigger: SagaTrigger = {
      ...base,
      eventId,
      // What the decision reads of a trigger is its session, event and id: the position and the
      // time (stamped on a pruning the saga records) play no part in it.
      position: 0n,
      recordedAt: 0,
      event: { type: 'EntryAppended', data: { entry } },
    };
    const asked = compactionAskedAfter(trigger, view);
    if (asked !== undefined) return asked;
  }
  return undefined;
}
