// Decisions about branch-summary attempts (the commands the attempt workflow's steps send).
// Every outcome carries the attempt's navigation (target and old leaf), summariser and duration,
// copied from its start; a completed summary moves the leaf to the summary's parent when needed
// and appends the summary there, in one batch.
import { recordedInstructions, requireEntryFields } from './decide-entries';
import {
  alreadyStarted,
  openAttempt,
  recordedError,
  requireAttemptId,
  requireBoundedUsage,
  requireEntryOrNull,
  requireReason,
  requireTime,
  summariserFields,
  summaryCallsFields,
} from './decide-attempts';
import type {
  CancelBranchSummary,
  FailBranchSummary,
  RecordBranchSummary,
  SkipBranchSummary,
  StartBranchSummary,
} from './session-commands';
import { alreadyExists } from './session-domain-error';
import type { SessionEvent } from './session-events';
import type { ActiveSessionState, BranchSummaryAttempt } from './session-state';

type BranchSummaryEnding = Pick<
  SkipBranchSummary['data'],
  'durationMs' | 'model' | 'usage' | 'summaryCalls' | 'summaryCallsOmitted'
>;

/** The outcome fields of a branch summary: its navigation, summariser and duration. */
function branchSummaryEndingFields(attempt: BranchSummaryAttempt, ending: BranchSummaryEnding) {
  const { targetId, oldLeafId } = attempt.started;
  requireTime('durationMs', ending.durationMs);
  requireBoundedUsage(ending.usage);
  return {
    targetId,
    oldLeafId,
    ...summariserFields(ending.model ?? attempt.started.model, ending.usage),
    durationMs: ending.durationMs,
    ...summaryCallsFields(ending),
  };
}

export function startBranchSummary(command: StartBranchSummary, state: ActiveSessionState): SessionEvent[] {
  const { attemptId, targetId, oldLeafId, model, startedAt } = command.data;
  requireAttemptId(attemptId);
  if (alreadyStarted(state, attemptId, 'branch_summary')) return [];
  requireEntryOrNull(state, targetId, 'navigation target');
  requireEntryOrNull(state, oldLeafId, 'old leaf');
  requireTime('startedAt', startedAt);
  const instructions = recordedInstructions(command.data.customInstructions);
  const data = {
    attemptId,
    targetId,
    oldLeafId,
    ...(model !== undefined ? { model } : {}),
    startedAt,
    ...instructions,
  };
  return [{ type: 'BranchSummaryStarted', data }];
}

/** Moves the leaf to the summary's parent if needed, appends the summary, ends the attempt. */
export function recordBranchSummary(command: RecordBranchSummary, state: ActiveSessionState): SessionEvent[] {
  const { attemptId, entry, model, usage, durationMs, summaryCalls, summaryCallsOmitted } = command.data;
  const attempt = openAttempt(state, attemptId, 'branch_summary');
  requireEntryFields(entry);
  if (state.hasEntry(entry.id))
    throw alreadyExists(`entry ${entry.id} already exists`, { entryId: entry.id });
  requireEntryOrNull(state, entry.parentId, 'branch summary parent');
  if (entry.fromId !== 'root') requireEntryOrNull(state, entry.fromId, 'branch summary origin');
  const fields = branchSummaryEndingFields(attempt, {
    model,
    usage,
    durationMs,
    ...(summaryCalls !== undefined ? { summaryCalls } : {}),
    ...(summaryCallsOmitted !== undefined ? { summaryCallsOmitted } : {}),
  });
  const newLeafId = entry.parentId;
  const events: SessionEvent[] = [];
  if (state.leafId !== newLeafId) {
    events.push({ type: 'LeafMoved', data: { leafId: newLeafId, previousLeafId: state.leafId } });
  }
  events.push(
    { type: 'EntryAppended', data: { entry } },
    {
      type: 'BranchSummaryCompleted',
      data: { attemptId, entryId: entry.id, newLeafId, ...fields },
    },
  );
  return events;
}

export function skipBranchSummary(command: SkipBranchSummary, state: ActiveSessionState): SessionEvent[] {
  const { attemptId, reason } = command.data;
  const attempt = openAttempt(state, attemptId, 'branch_summary');
  requireReason(reason);
  const fields = branchSummaryEndingFields(attempt, command.data);
  return [{ type: 'BranchSummarySkipped', data: { attemptId, reason, ...fields } }];
}

export function cancelBranchSummary(command: CancelBranchSummary, state: ActiveSessionState): SessionEvent[] {
  const { attemptId, reason } = command.data;
  const attempt = openAttempt(state, attemptId, 'branch_summary');
  requireReason(reason);
  const fields = branchSummaryEndingFields(attempt, command.data);
  return [{ type: 'BranchSummaryCancelled', data: { attemptId, reason, ...fields } }];
}

export function failBranchSummary(command: FailBranchSummary, state: ActiveSessionState): SessionEvent[] {
  const { attemptId, error } = command.data;
  const attempt = openAttempt(state, attemptId, 'branch_summary');
  const fields = branchSummaryEndingFields(attempt, command.data);
  return [{ type: 'BranchSummaryFailed', data: { attemptId, error: recordedError(error), ...fields } }];
}
