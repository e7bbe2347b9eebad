// What a checkpoint records (decision 0018): what the store holds at its current global position
// that changed since an earlier one — the head of every stream written since, the streams erased
// since and not written again — and, where the store counts them cheaply, how many live streams
// and events it holds. On SQLite it is read inside the writer's transaction (sqlite-store-changes.ts):
// one consistent view of the file, off the event loop, whatever other engines write. Elsewhere it
// is read from the store's global log after `from` (EventStoreDB: commit positions), without counts.
import {
  ERASURE_LOG_STREAM,
  erasureRecordOfEvent,
  SqliteEventStore,
  type EventStore,
} from '@strata/event-store';
import { isHash } from '../hash-chain/event-seal';
import type { StreamHead } from './log-entry';
import { storeChangeWrites } from './sqlite-store-changes';

export interface StoreChanges {
  /** The store's global position the changes run to (-1 for a store that holds nothing). */
  readonly storePosition: bigint;
  /** Heads of the streams written after `from`, by stream id. */
  readonly heads: readonly StreamHead[];
  /** Streams erased after `from` and holding nothing now, by stream id. */
  readonly erased: readonly string[];
  readonly streams: number | null;
  readonly events: bigint | null;
}

/** The changes after global position `from` (-1: everything), up to the store's head now. */
export async function storeChangesSince(store: EventStore, from: bigint): Promise<StoreChanges> {
  if (store instanceof SqliteEventStore) {
    return store.writer.write<StoreChanges>(storeChangeWrites.storeChangesSince, {
      from,
      erasureStream: ERASURE_LOG_STREAM,
    });
  }
  const heads = new Map<string, StreamHead>();
  const erased = new Set<string>();
  let storePosition = from;
  for await (const event of store.readAll({
    uncached: true,
    filter: { includeErasures: true },
    ...(from >= 0n ? { fromPosition: from } : {}),
  })) {
    if (event.position <= from) continue;
    storePosition = event.position;
    const record = erasureRecordOfEvent(event);
    if (record !== undefined) {
      heads.delete(record.streamId);
      erased.add(record.streamId);
      continue;
    }
    if (event.streamId === ERASURE_LOG_STREAM) continue;
    const hash = event.metadata['hash'];
    heads.set(event.streamId, {
      stream: event.streamId,
      revision: event.revision.toString(),
      headHash: isHash(hash) ? hash : null,
    });
    erased.delete(event.streamId);
  }
  return {
    storePosition,
    heads: [...heads.values()].sort((left, right) => compare(left.stream, right.stream)),
    erased: [...erased].sort(compare),
    streams: null,
    events: null,
  };
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
