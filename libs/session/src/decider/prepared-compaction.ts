// Whether a compaction prepared earlier still fits the session (issue 4, concurrency; issue 13).
// Its summary was made from the path at one leaf; by the time the model answers, entries may
// have been appended or the leaf moved. It is attached under the leaf it was prepared at, or not
// at all: once the leaf has moved on, whoever moved it goes on from its own entries (an agent
// host appends the next entry under the one it wrote last), so a compaction attached under the
// new leaf would be left on a dead branch by the next append, or make it fail. A compaction whose
// leaf moved on is stale; so is one whose first kept entry left the path or whose newest
// compaction on the path is not the one it was prepared against.
import { latestCompactionIndex } from '../compaction/context-usage';
import type { SessionState } from './session-state';

/** What a compaction was prepared against, to tell whether it still fits the session. */
export interface PreparedAgainst {
  /** The leaf when it was prepared: the compaction is attached under it. */
  readonly leafId: string | null;
  readonly firstKeptEntryId: string;
  /** The newest compaction on the prepared path; undefined when there was none. */
  readonly previousCompactionId: string | undefined;
}

/** Whether a compaction prepared against `prepared` can no longer be attached under the current leaf. */
export function isStale(state: SessionState, prepared: PreparedAgainst): boolean {
  if (state.status !== 'active' || state.leafId === null) return true;
  if (state.leafId !== prepared.leafId) return true;
  if (!state.isOnPathTo(prepared.firstKeptEntryId, state.leafId)) return true;
  const path = state.pathTo(state.leafId);
  const newestCompaction = path[latestCompactionIndex(path)];
  return newestCompaction?.id !== prepared.previousCompactionId;
}
