// Writing a branch summary that was made while the session could move on (issue 4 part 3): it
// is attached at the destination only while the leaf is still the one navigation started from;
// otherwise the attempt ends skipped as stale and nothing is attached (recording what the
// summariser spent on it all the same).
import type {
  BranchSummaryEntry,
  FileLists,
  SessionCommand,
  SessionState,
  SummaryCallsRecord,
  Usage,
} from '@strata/session';
import { newEntryId } from '../../shared/entry-ids';

/** A branch summary ready to be written, whoever produced it. */
export interface BranchSummaryDraft {
  readonly summary: string;
  readonly details?: FileLists;
  readonly fromExtension: boolean;
  readonly model?: string;
  readonly usage?: Usage;
}

export interface RecordBranchSummaryInput {
  readonly attemptId: string;
  readonly draft: BranchSummaryDraft;
  /** The leaf navigation started from: the end of the summarised branch. */
  readonly oldLeafId: string | null;
  /** Where navigation lands: the summary's parent. */
  readonly newLeafId: string | null;
  readonly timestamp: string;
  readonly durationMs: number;
  /** The summary calls the attempt made. */
  readonly calls?: SummaryCallsRecord;
}

export const STALE_SUMMARY_REASON = 'stale';

/**
 * The plan that moves the leaf to the destination and appends the summary there, or ends the
 * attempt stale when the leaf moved meanwhile. The summary's `fromId` names the abandoned leaf
 * (reference defect 21: upstream wrote the destination).
 */
export function recordBranchSummaryPlan(
  input: RecordBranchSummaryInput,
): (state: SessionState) => SessionCommand[] {
  const { attemptId, draft } = input;
  const spent = {
    ...(draft.model !== undefined ? { model: draft.model } : {}),
    ...(draft.usage !== undefined ? { usage: draft.usage } : {}),
    durationMs: input.durationMs,
    ...input.calls,
  };
  return (state) => {
    if (state.status !== 'active') return [];
    if (state.leafId !== input.oldLeafId) {
      return [{ type: 'SkipBranchSummary', data: { attemptId, reason: STALE_SUMMARY_REASON, ...spent } }];
    }
    const entry: BranchSummaryEntry = {
      type: 'branch_summary',
      id: newEntryId((entryId) => state.hasEntry(entryId), `${attemptId}/branch-summary`),
      parentId: input.newLeafId,
      timestamp: input.timestamp,
      fromId: input.oldLeafId ?? 'root',
      summary: draft.summary,
      ...(draft.details !== undefined ? { details: draft.details } : {}),
      ...(draft.fromExtension ? { fromExtension: true } : {}),
    };
    return [{ type: 'RecordBranchSummary', data: { attemptId, entry, ...spent } }];
  };
}
