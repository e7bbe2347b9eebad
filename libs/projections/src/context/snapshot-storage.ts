// Where the context projection keeps its session snapshots (session-snapshot.ts): one row per
// session, replaced by each newer snapshot, deleted when the session is erased or the
// projection is rebuilt. A snapshot is a cache of what the events give: a row lost, refused or
// missing costs a hydration from the events, never a different answer.
import type { SessionSnapshotRow } from './session-snapshot';

export interface SessionSnapshotStorage {
  /** The session's snapshot row, if one is kept (its body is read by `decodeSessionSnapshot`). */
  load(sessionId: string): Promise<SessionSnapshotRow | undefined>;
  /** Keeps the row as the session's snapshot (replacing the one kept before). */
  save(row: SessionSnapshotRow): Promise<void>;
  /** Forgets the session's snapshot (its stream was erased). */
  forgetSession(sessionId: string): Promise<void>;
  /** Forgets every snapshot (the projection is rebuilt). */
  clear(): Promise<void>;
}

/** Snapshots in memory (tests, and stores that keep nothing on disk). */
export class InMemorySnapshotStorage implements SessionSnapshotStorage {
  private readonly rows = new Map<string, SessionSnapshotRow>();

  load(sessionId: string): Promise<SessionSnapshotRow | undefined> {
    return Promise.resolve(this.rows.get(sessionId));
  }

  save(row: SessionSnapshotRow): Promise<void> {
    this.rows.set(row.sessionId, row);
    return Promise.resolve();
  }

  forgetSession(sessionId: string): Promise<void> {
    this.rows.delete(sessionId);
    return Promise.resolve();
  }

  clear(): Promise<void> {
    this.rows.clear();
    return Promise.resolve();
  }
}
