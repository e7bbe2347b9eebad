// StreamLookups over the store: short backward reads of one session stream from the event in
// hand (the compaction entry sits right before its CompactionCompleted; an attempt's start is
// usually a few events back). Attempt starts seen are remembered, bounded (the first remembered
// goes out first: looked at with `peek`, a look does not make one recent).
import { LRUCache } from 'lru-cache';
import type { EventStore, RecordedEvent } from '@strata/event-store';
import { readProjectedEvent } from '@strata/projections';
import type { SessionEntry, SessionEvent } from '@strata/session';
import type { AttemptStart, StreamLookups } from './public-events';

const REMEMBERED_ATTEMPTS = 10_000;

const noEvents: AsyncIterable<RecordedEvent> = {
  [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }),
};

function sessionEventOf(recorded: RecordedEvent): SessionEvent | undefined {
  const result = readProjectedEvent(recorded);
  return result.kind === 'valid' ? result.event.event : undefined;
}

export class StoreStreamLookups implements StreamLookups {
  private readonly attemptStarts = new LRUCache<string, AttemptStart>({ max: REMEMBERED_ATTEMPTS });

  constructor(private readonly store: EventStore) {}

  async entryBefore(streamId: string, revision: bigint, entryId: string): Promise<SessionEntry | undefined> {
    for await (const recorded of this.backwardsFrom(streamId, revision)) {
      const event = sessionEventOf(recorded);
      if (event?.type === 'EntryAppended' && event.data.entry.id === entryId) return event.data.entry;
    }
    return undefined;
  }

  async attemptStartBefore(
    streamId: string,
    revision: bigint,
    attemptId: string,
  ): Promise<AttemptStart | undefined> {
    const key = `${streamId}\u0000${attemptId}`;
    const remembered = this.attemptStarts.peek(key);
    if (remembered !== undefined) return remembered;
    for await (const recorded of this.backwardsFrom(streamId, revision)) {
      const event = sessionEventOf(recorded);
      let start: AttemptStart | undefined;
      if (event?.type === 'CompactionStarted' && event.data.attemptId === attemptId) {
        start = { kind: 'compaction', data: event.data };
      } else if (event?.type === 'BranchSummaryStarted' && event.data.attemptId === attemptId) {
        start = { kind: 'branch_summary', data: event.data };
      }
      if (start !== undefined) {
        this.attemptStarts.set(key, start);
        return start;
      }
    }
    return undefined;
  }

  async opensBranchSummary(streamId: string, revision: bigint): Promise<boolean> {
    const following: SessionEvent[] = [];
    let correlation: unknown;
    for await (const recorded of this.store.readStream(streamId, { fromRevision: revision, maxCount: 3 })) {
      if (recorded.revision === revision) {
        correlation = recorded.metadata['correlationId'];
        continue;
      }
      if (correlation === undefined || recorded.metadata['correlationId'] !== correlation) break;
      const event = sessionEventOf(recorded);
      if (event !== undefined) following.push(event);
    }
    const [appended, completed] = following;
    return (
      appended?.type === 'EntryAppended' &&
      appended.data.entry.type === 'branch_summary' &&
      completed?.type === 'BranchSummaryCompleted' &&
      completed.data.entryId === appended.data.entry.id
    );
  }

  private backwardsFrom(streamId: string, revision: bigint): AsyncIterable<RecordedEvent> {
    if (revision <= 0n) return noEvents;
    return this.store.readStream(streamId, { direction: 'backwards', fromRevision: revision - 1n });
  }
}
