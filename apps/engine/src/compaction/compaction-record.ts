// Writing a compaction that was prepared earlier (issue 4, concurrency). The summary was made
// from the path at one revision; by the time the model answers, entries may have been appended
// or the leaf moved. The compaction is attached under the leaf that is current when it is
// written, and only while its first kept entry is still on that leaf's path and the newest
// compaction on the path is the one it was prepared against; otherwise it is stale. Entries
// appended meanwhile come after the first kept entry, so they stay in the context.
import {
  latestCompactionIndex,
  type CompactionEntry,
  type CompactionReady,
  type FileLists,
  type SessionCommand,
  type SessionEntry,
  type SessionState,
  type TokenCounter,
  type Usage,
} from '@strata/session';
import { newEntryId } from '../shared/entry-ids';
import { estimateContextTokens } from '../sessions/session-views';
import type { HookCompaction } from '../hooks/session-hook.types';

/** A compaction ready to be written, whoever produced it. */
export interface CompactionDraft {
  readonly summary: string;
  readonly shortSummary?: string;
  readonly firstKeptEntryId: string;
  readonly tokensBefore: number;
  readonly details?: FileLists;
  readonly preserveData?: Readonly<Record<string, unknown>>;
  readonly fromExtension: boolean;
  readonly model?: string;
  readonly usage?: Usage;
}

/** What the draft was prepared against, to tell whether it still fits the session. */
export interface PreparedAgainst {
  readonly firstKeptEntryId: string;
  /** The newest compaction on the prepared path; undefined when there was none. */
  readonly previousCompactionId: string | undefined;
}

export interface RecordCompactionInput {
  readonly attemptId: string;
  readonly draft: CompactionDraft;
  readonly preparedAgainst: PreparedAgainst;
  readonly timestamp: string;
  readonly durationMs: number;
  readonly counter: TokenCounter;
}

/** Whether a draft prepared against `prepared` can be attached under the current leaf. */
export function isStale(state: SessionState, prepared: PreparedAgainst): boolean {
  if (state.status !== 'active' || state.leafId === null) return true;
  if (!state.isOnPathTo(prepared.firstKeptEntryId, state.leafId)) return true;
  const path = state.pathTo(state.leafId);
  const newestCompaction = path[latestCompactionIndex(path)];
  return newestCompaction?.id !== prepared.previousCompactionId;
}

/**
 * The plan that records the draft under the current leaf, or decides nothing when the draft is
 * stale (an empty decision: the caller prepares again or ends the attempt skipped).
 */
export function recordCompactionPlan(
  input: RecordCompactionInput,
): (state: SessionState) => SessionCommand[] {
  return (state) => {
    if (state.status !== 'active' || isStale(state, input.preparedAgainst)) return [];
    const { draft } = input;
    const entry: CompactionEntry = {
      type: 'compaction',
      id: newEntryId((entryId) => state.hasEntry(entryId), `${input.attemptId}/compaction`),
      parentId: state.leafId,
      timestamp: input.timestamp,
      summary: draft.summary,
      ...(draft.shortSummary !== undefined ? { shortSummary: draft.shortSummary } : {}),
      firstKeptEntryId: draft.firstKeptEntryId,
      tokensBefore: draft.tokensBefore,
      ...(draft.details !== undefined ? { details: draft.details } : {}),
      ...(draft.preserveData !== undefined ? { preserveData: { ...draft.preserveData } } : {}),
      ...(draft.fromExtension ? { fromExtension: true } : {}),
    };
    const estimatedTokensAfter = estimateContextTokens(
      [...state.entries(), entry],
      entry.id,
      state.prunedResults(),
      input.counter,
    );
    return [
      {
        type: 'RecordCompaction',
        data: {
          attemptId: input.attemptId,
          entry,
          ...(draft.model !== undefined ? { model: draft.model } : {}),
          ...(draft.usage !== undefined ? { usage: draft.usage } : {}),
          durationMs: input.durationMs,
          estimatedTokensAfter,
        },
      },
    ];
  };
}

/**
 * Why a hook-supplied compaction cannot be used (reference defect 23: upstream stored it
 * unchecked), or undefined when it can: its first kept entry must be on the compacted path and
 * not a tool result, its summary text, and its token count a whole number.
 */
export function hookCompactionProblem(
  compaction: HookCompaction,
  pathEntries: readonly SessionEntry[],
): string | undefined {
  if (typeof compaction.summary !== 'string') return 'its summary is not text';
  if (!Number.isInteger(compaction.tokensBefore) || compaction.tokensBefore < 0) {
    return `tokensBefore ${String(compaction.tokensBefore)} is not a non-negative integer`;
  }
  const firstKept = pathEntries.find((entry) => entry.id === compaction.firstKeptEntryId);
  if (!firstKept) return `first kept entry ${compaction.firstKeptEntryId} is not on the compacted path`;
  if (firstKept.type === 'message' && firstKept.message.role === 'toolResult') {
    return `first kept entry ${compaction.firstKeptEntryId} is a tool result`;
  }
  return undefined;
}

/** The draft of a validated hook compaction: stored as given, marked as from an extension. */
export function hookCompactionDraft(compaction: HookCompaction): CompactionDraft {
  return {
    summary: compaction.summary,
    ...(compaction.shortSummary !== undefined ? { shortSummary: compaction.shortSummary } : {}),
    firstKeptEntryId: compaction.firstKeptEntryId,
    tokensBefore: compaction.tokensBefore,
    ...(compaction.details !== undefined ? { details: compaction.details } : {}),
    ...(compaction.preserveData !== undefined ? { preserveData: compaction.preserveData } : {}),
    fromExtension: true,
    model: HOOK_MODEL,
  };
}

/** The model recorded for a compaction a hook supplied. */
export const HOOK_MODEL = 'extension';

/** What a prepared compaction was prepared against. */
export function preparedAgainst(preparation: CompactionReady): PreparedAgainst {
  return {
    firstKeptEntryId: preparation.firstKeptEntryId,
    previousCompactionId: preparation.previousCompactionId,
  };
}
