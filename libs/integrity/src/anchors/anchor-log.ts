// The anchor log: where a store keeps the anchors signed for its streams, outside the streams
// themselves. Since decision 0018 it is the store's signed log (store-log/): anchors, checkpoints
// and erasures in one hash chain. An anchor holds a head, never content, so the log survives an
// erasure unchanged: the erasure entry answers for it.
import { EsdbEventStore, type EventStore, InMemoryEventStore, SqliteEventStore } from '@strata/event-store';
import { EsdbLogStorage } from '../store-log/esdb-log-storage';
import type { LogRead } from '../store-log/log-storage';
import { InMemoryLogStorage } from '../store-log/memory-log-storage';
import { SignedLog } from '../store-log/signed-log';
import { SqliteLogStorage } from '../store-log/sqlite-log-storage';

/** A store's signed log, read for its anchors or for every entry. */
export type AnchorLog = SignedLog;
export type AnchorQuery = LogRead;

/** A store whose anchors cannot be kept (an adapter without an anchor log). */
export class AnchorLogUnavailableError extends Error {
  override readonly name = 'AnchorLogUnavailableError';
}

const memoryLogs = new WeakMap<InMemoryEventStore, SignedLog>();
const fileLogs = new WeakMap<SqliteEventStore, SignedLog>();

/** The signed log of a store opened by `openEventStore` (one per store object); throws `AnchorLogUnavailableError`. */
export function anchorLogOf(store: EventStore): AnchorLog {
  if (store instanceof SqliteEventStore) {
    let log = fileLogs.get(store);
    if (log === undefined) {
      log = new SignedLog(new SqliteLogStorage(store.database, store.writer));
      fileLogs.set(store, log);
    }
    return log;
  }
  if (store instanceof EsdbEventStore) return new SignedLog(new EsdbLogStorage(store.client));
  if (store instanceof InMemoryEventStore) {
    let log = memoryLogs.get(store);
    if (log === undefined) {
      log = new SignedLog(new InMemoryLogStorage());
      memoryLogs.set(store, log);
    }
    return log;
  }
  throw new AnchorLogUnavailableError('this store keeps no anchor log');
}

/** The store's anchor log, or undefined for a store that keeps none. */
export function anchorLogIfAny(store: EventStore): AnchorLog | undefined {
  try {
    return anchorLogOf(store);
  } catch (error) {
    if (error instanceof AnchorLogUnavailableError) return undefined;
    throw error;
  }
}
