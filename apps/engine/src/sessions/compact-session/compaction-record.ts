// Writing a compaction that was prepared earlier (issue 4, concurrency; issue 13): the entry is
// attached under the leaf it was prepared at, which must still be the current leaf; a draft whose
// leaf moved on, or that has gone stale otherwise, is not written (`isStale` in @strata/session).
import {
  estimateContextTokens,
  isStale,
  type CompactionEntry,
  type FileLists,
  type PreparedAgainst,
  type SessionCommand,
  type SessionState,
  type SummaryCallsRecord,
  type TokenCounter,
  type Usage,
} from '@strata/session';
import { newEntryId } from '../../shared/entry-ids';
import type { HookCompaction } from '../../hooks/session-hook.types';

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

export interface RecordCompactionInput {
  readonly attemptId: string;
  readonly draft: CompactionDraft;
  /** The summary calls the attempt made. */
  readonly calls?: SummaryCallsRecord;
  readonly preparedAgainst: PreparedAgainst;
  readonly timestamp: string;
  readonly durationMs: number;
  readonly counter: TokenCounter;
}

/**
 * The plan that records the draft under the current leaf (the one it was prepared at), or decides
 * nothing when the draft is stale (an empty decision: the caller prepares again or ends the
 * attempt skipped).
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
          ...input.calls,
        },
      },
    ];
  };
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
