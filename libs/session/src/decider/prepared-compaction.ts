// Whether a compaction prepared earlier still fits the session (issue 4, concurrency). Its
// summary was made from the path at one revision; by the time the model answers, entries may
// have been appended or the leaf moved. It can be attached under the current leaf only while
// its first kept entry is still on that leaf's path and the newest compaction on the path is the
// one it was prepared against; otherwise it is stale. Entries appended meanwhile come after the
// first kept entry, so they stay in the context.
import { latestCompactionIndex } from '../compaction/context-usage';
import type { SessionState } from './session-state';

/** What a compaction was prepared against, to tell whether it still fits the session. */
export interface PreparedAgainst {
  readonly firstKeptEntryId: string;
  /** The newest compaction on the prepared path; undefined when there was none. */
  readonly previousCompactionId: string | undefined;
}

/** Whether a compaction prepared against `prepared` can no longer be attached under the current leaf. */
export function isStale(state: SessionState, prepared: PreparedAgainst): boolean {
  if (state.status !== 'active' || state.leafId === null) return true;
  if (!state.isOnPathTo(prepared.firstKeptEntryId, state.leafId)) return true;
  const path = state.pathTo(state.leafId);
  const newestCompaction = path[latestCompactionIndex(path)];
  return newestCompaction?.id !== prepared.previousCompactionId;
}
