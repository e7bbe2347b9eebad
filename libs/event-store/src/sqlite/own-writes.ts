// What a SQLite store remembers of the events it wrote itself, so that its readers need not read
// them back: the rows it wrote last (recent-appends.ts, for its subscriptions and the write side's
// next fold), the metadata and time of each stream's last event (`WrittenHeads`, for the hash the
// next append chains to), and the value of an event whose data was spliced from texts worked out
// off the event loop (shared-event-data.ts, so no reader parses megabytes again). All bounded; an
// erasure forgets its stream.
import type { AppendResult, EncodedEvent } from '../port';
import { RecentAppends, WrittenHeads, type RecentAppendsBounds, type WrittenHead } from './recent-appends';
import type { SharedEventData } from './shared-event-data';
import { rowDataChars, rowWithText, type EventRow } from './sqlite-event-rows';

/** The rows an append stored: consecutive revisions and positions ending at the result's. */
function writtenRows(
  streamId: string,
  events: readonly EncodedEvent[],
  result: AppendResult,
  createdAt: string,
): EventRow[] {
  const last = BigInt(events.length - 1);
  return events.map((event, index) =>
    rowWithText(
      {
        global_position: result.position - last + BigInt(index),
        stream_id: streamId,
        stream_revision: result.nextExpectedRevision - last + BigInt(index),
        event_id: event.id,
        type: event.type,
        metadata: event.metadata,
        created_at: event.createdAt ?? createdAt,
      },
      event.data,
    ),
  );
}

export class OwnWrites {
  readonly recentAppends: RecentAppends;
  private readonly heads = new WrittenHeads();

  constructor(
    private readonly sharedData: SharedEventData,
    bounds?: RecentAppendsBounds,
  ) {
    this.recentAppends = new RecentAppends(bounds);
  }

  /**
   * Remembers an append this store wrote (not one it found written before); `values[i]`, when
   * given, is the data of event i as its text parses, frozen.
   */
  remember(
    streamId: string,
    events: readonly EncodedEvent[],
    result: AppendResult,
    createdAt: string,
    values: readonly unknown[],
  ): void {
    if (events.length === 0) return;
    const rows = writtenRows(streamId, events, result, createdAt);
    rows.forEach((row, index) => {
      const value = values[index];
      if (value === undefined) return;
      this.sharedData.remember(row.global_position, streamId, row.event_id, rowDataChars(row), value);
    });
    this.recentAppends.add(rows);
    const last = rows[rows.length - 1]!;
    this.heads.remember(streamId, {
      position: last.global_position,
      eventId: last.event_id,
      revision: last.stream_revision,
      type: last.type,
      metadata: last.metadata,
      createdAt: last.created_at,
    });
  }

  /** The last event this store wrote to the stream, when it is the one at `position` with this id. */
  headAt(streamId: string, position: bigint, eventId: string): WrittenHead | undefined {
    return this.heads.at(streamId, position, eventId);
  }

  forgetStream(streamId: string): void {
    this.sharedData.forgetStream(streamId);
    this.recentAppends.forgetStream(streamId);
    this.heads.forgetStream(streamId);
  }

  clear(): void {
    this.sharedData.clear();
    this.recentAppends.clear();
    this.heads.clear();
  }
}
