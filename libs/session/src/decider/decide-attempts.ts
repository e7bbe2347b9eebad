// Decisions about compaction and branch-summary attempts (the sagas' commands) and the
// continuation that may follow a compaction. An attempt starts once (a repeated start is a
// no-op) and ends exactly once: a second outcome is refused with `already_exists`, which is
// what makes a redelivered saga command harmless. Every outcome carries what the audit needs
// (trigger, model, usage, duration, tokens before and after; a branch summary's navigation),
// the facts of the attempt's start copied here so callers cannot record them differently.
import { identifierProblem } from '../entries/identifiers';
import type { Usage } from '../entries/messages';
import { isBoundedUsage, MAX_COST_FIGURE, MAX_TOKEN_FIGURE } from '../entries/usage-bounds';
import { isCount, isTime, recordedInstructions, requireEntryFields } from './decide-entries';
import type {
  CancelBranchSummary,
  CancelCompaction,
  FailBranchSummary,
  FailCompaction,
  RecordBranchSummary,
  RecordCompaction,
  RequestContinuation,
  SkipBranchSummary,
  SkipCompaction,
  StartBranchSummary,
  StartCompaction,
  SummaryCallsRecord,
} from './session-commands';
import { alreadyExists, conflict, invalid, notFound } from './session-domain-error';
import {
  MAX_SUMMARY_CALLS,
  MAX_SUMMARY_CALL_ERROR_LENGTH,
  MAX_SUMMARY_CALL_NAME_LENGTH,
  type AttemptError,
  type SessionEvent,
  type SummaryCall,
} from './session-events';
import type {
  ActiveSessionState,
  BranchSummaryAttempt,
  CompactionAttempt,
  SessionAttempt,
} from './session-state';

type AttemptKind = SessionAttempt['kind'];
type AttemptOfKind<Kind extends AttemptKind> = Extract<SessionAttempt, { kind: Kind }>;

const kindNames: Record<AttemptKind, string> = { compaction: 'compaction', branch_summary: 'branch summary' };

function isOfKind<Kind extends AttemptKind>(
  attempt: SessionAttempt,
  kind: Kind,
): attempt is AttemptOfKind<Kind> {
  return attempt.kind === kind;
}

/** True when `attemptId` already started as `kind` (so a start is a no-op); refuses another kind. */
function alreadyStarted(state: ActiveSessionState, attemptId: string, kind: AttemptKind): boolean {
  const existing = state.getAttempt(attemptId);
  if (!existing) return false;
  if (existing.kind !== kind) {
    throw alreadyExists(`attempt id ${attemptId} belongs to a ${kindNames[existing.kind]}`, { attemptId });
  }
  return true;
}

function openAttempt<Kind extends AttemptKind>(
  state: ActiveSessionState,
  attemptId: string,
  kind: Kind,
): AttemptOfKind<Kind> {
  const attempt = state.getAttempt(attemptId);
  if (!attempt || !isOfKind(attempt, kind)) {
    throw notFound(`${kindNames[kind]} attempt ${attemptId} not found`, { attemptId });
  }
  if (attempt.outcome !== null) {
    throw alreadyExists(`${kindNames[kind]} attempt ${attemptId} already ended`, {
      attemptId,
      outcome: attempt.outcome.type,
    });
  }
  return attempt;
}

function requireCount(name: string, value: number): void {
  if (!isCount(value)) throw invalid(`${name} must be a non-negative safe integer`, { [name]: value });
}

function requireTime(name: string, value: number): void {
  if (!isTime(value))
    throw invalid(`${name} must be a non-negative number of milliseconds`, { [name]: value });
}

function requireAttemptId(attemptId: string): void {
  const problem = identifierProblem(attemptId);
  if (problem !== undefined) throw invalid(`attempt id ${problem}`, { attemptId });
}

function requireBoundedUsage(usage: Usage | undefined): void {
  if (usage !== undefined && !isBoundedUsage(usage)) {
    throw invalid(
      `usage figures must be non-negative, tokens at most ${MAX_TOKEN_FIGURE}, costs at most ${MAX_COST_FIGURE}`,
    );
  }
}

function requireReason(reason: string): void {
  if (reason.length === 0) throw invalid('a reason is required');
}

function requireEntryOrNull(state: ActiveSessionState, entryId: string | null, role: string): void {
  if (entryId !== null && !state.hasEntry(entryId)) {
    throw notFound(`${role} ${entryId} not found`, { entryId });
  }
}

function summariserFields(model: string | undefined, usage: Usage | undefined) {
  return { ...(model !== undefined ? { model } : {}), ...(usage !== undefined ? { usage } : {}) };
}

function requireBoundedText(name: string, value: string | undefined, bound: number): void {
  if (value !== undefined && value.length > bound) {
    throw invalid(`${name} must be at most ${bound} characters`, { length: value.length });
  }
}

/** The summary calls as an outcome records them, each checked (bounded names, figures and errors). */
function summaryCallsFields(record: SummaryCallsRecord): {
  summaryCalls?: SummaryCall[];
  summaryCallsOmitted?: number;
} {
  const { summaryCalls, summaryCallsOmitted } = record;
  if (summaryCalls !== undefined && summaryCalls.length > MAX_SUMMARY_CALLS) {
    throw invalid(`an outcome lists at most ${MAX_SUMMARY_CALLS} summary calls`, {
      count: summaryCalls.length,
    });
  }
  for (const call of summaryCalls ?? []) {
    requireBoundedText('a summary call summarizer', call.summarizer, MAX_SUMMARY_CALL_NAME_LENGTH);
    requireBoundedText('a summary call model', call.model, MAX_SUMMARY_CALL_NAME_LENGTH);
    requireBoundedText('a summary call error', call.error?.message, MAX_SUMMARY_CALL_ERROR_LENGTH);
    requireCount('retry', call.retry);
    requireTime('durationMs', call.durationMs);
    requireBoundedUsage(call.usage);
  }
  if (summaryCallsOmitted !== undefined) requireCount('summaryCallsOmitted', summaryCallsOmitted);
  return {
    ...(summaryCalls !== undefined && summaryCalls.length > 0
      ? { summaryCalls: summaryCalls.map(recordedCall) }
      : {}),
    ...(summaryCallsOmitted !== undefined && summaryCallsOmitted > 0 ? { summaryCallsOmitted } : {}),
  };
}

function recordedCall(call: SummaryCall): SummaryCall {
  const { purpose, summarizer, retry, model, usage, durationMs, error } = call;
  return {
    purpose,
    summarizer,
    retry,
    ...summariserFields(model, usage),
    durationMs,
    ...(error !== undefined ? { error: recordedError(error) } : {}),
  };
}

type CompactionEnding = Pick<
  SkipCompaction['data'],
  'durationMs' | 'model' | 'usage' | 'estimatedTokensAfter' | 'summaryCalls' | 'summaryCallsOmitted'
>;

/** The outcome fields of a compaction that did not compact: the context stays as it was unless told. */
function compactionEndingFields(attempt: CompactionAttempt, ending: CompactionEnding) {
  const { trigger, tokensBefore } = attempt.started;
  const estimatedTokensAfter = ending.estimatedTokensAfter ?? tokensBefore;
  requireTime('durationMs', ending.durationMs);
  requireBoundedUsage(ending.usage);
  requireCount('estimatedTokensAfter', estimatedTokensAfter);
  return {
    trigger,
    ...summariserFields(ending.model ?? attempt.started.model, ending.usage),
    durationMs: ending.durationMs,
    tokensBefore,
    estimatedTokensAfter,
    ...summaryCallsFields(ending),
  };
}

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

export function startCompaction(command: StartCompaction, state: ActiveSessionState): SessionEvent[] {
  const { attemptId, trigger, preparedAtLeafId, firstKeptEntryId, tokensBefore, model, startedAt, force } =
    command.data;
  const instructions = recordedInstructions(command.data.customInstructions);
  requireAttemptId(attemptId);
  if (alreadyStarted(state, attemptId, 'compaction')) return [];
  requireEntryOrNull(state, preparedAtLeafId, 'prepared-at leaf');
  if (firstKeptEntryId !== undefined) requireEntryOrNull(state, firstKeptEntryId, 'first kept entry');
  requireCount('tokensBefore', tokensBefore);
  requireTime('startedAt', startedAt);
  const data = {
    attemptId,
    trigger,
    preparedAtLeafId,
    ...(firstKeptEntryId !== undefined ? { firstKeptEntryId } : {}),
    tokensBefore,
    ...(model !== undefined ? { model } : {}),
    startedAt,
    ...(force === true ? { force } : {}),
    ...instructions,
  };
  return [{ type: 'CompactionStarted', data }];
}

/** Appends the compaction entry at the current leaf and ends the attempt, in one batch. */
export function recordCompaction(command: RecordCompaction, state: ActiveSessionState): SessionEvent[] {
  const { attemptId, entry, model, usage, durationMs, estimatedTokensAfter } = command.data;
  const attempt = openAttempt(state, attemptId, 'compaction');
  const calls = summaryCallsFields(command.data);
  requireEntryFields(entry);
  if (state.hasEntry(entry.id))
    throw alreadyExists(`entry ${entry.id} already exists`, { entryId: entry.id });
  if (entry.parentId !== state.leafId) {
    throw conflict(
      `a compaction is appended at the leaf ${state.leafId ?? 'null'}, not ${entry.parentId ?? 'null'}`,
      {
        parentId: entry.parentId,
        leafId: state.leafId,
      },
    );
  }
  const { firstKeptEntryId } = entry;
  if (entry.parentId === null || !state.isOnPathTo(firstKeptEntryId, entry.parentId)) {
    throw invalid(`first kept entry ${firstKeptEntryId} is not on the compaction's path`, {
      firstKeptEntryId,
    });
  }
  const firstKept = state.getEntry(firstKeptEntryId);
  if (firstKept?.type === 'message' && firstKept.message.role === 'toolResult') {
    throw invalid(`first kept entry ${firstKeptEntryId} is a tool result`, { firstKeptEntryId });
  }
  requireCount('tokensBefore', entry.tokensBefore);
  requireTime('durationMs', durationMs);
  requireCount('estimatedTokensAfter', estimatedTokensAfter);
  requireBoundedUsage(usage);
  return [
    { type: 'EntryAppended', data: { entry } },
    {
      type: 'CompactionCompleted',
      data: {
        attemptId,
        entryId: entry.id,
        trigger: attempt.started.trigger,
        ...summariserFields(model ?? attempt.started.model, usage),
        durationMs,
        tokensBefore: entry.tokensBefore,
        estimatedTokensAfter,
        ...calls,
      },
    },
  ];
}

export function skipCompaction(command: SkipCompaction, state: ActiveSessionState): SessionEvent[] {
  const { attemptId, reason } = command.data;
  const attempt = openAttempt(state, attemptId, 'compaction');
  requireReason(reason);
  const fields = compactionEndingFields(attempt, command.data);
  return [{ type: 'CompactionSkipped', data: { attemptId, reason, ...fields } }];
}

export function cancelCompaction(command: CancelCompaction, state: ActiveSessionState): SessionEvent[] {
  const { attemptId, reason } = command.data;
  const attempt = openAttempt(state, attemptId, 'compaction');
  requireReason(reason);
  const fields = compactionEndingFields(attempt, command.data);
  return [{ type: 'CompactionCancelled', data: { attemptId, reason, ...fields } }];
}

export function failCompaction(command: FailCompaction, state: ActiveSessionState): SessionEvent[] {
  const { attemptId, error } = command.data;
  const attempt = openAttempt(state, attemptId, 'compaction');
  const fields = compactionEndingFields(attempt, command.data);
  return [{ type: 'CompactionFailed', data: { attemptId, error: recordedError(error), ...fields } }];
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

function recordedError(error: AttemptError): AttemptError {
  return { message: error.message, ...(error.code !== undefined ? { code: error.code } : {}) };
}

const triggerOfReason = { auto_continue: 'threshold', overflow_retry: 'overflow' } as const;

/**
 * Continuation follows a completed automatic compaction, at most once: `auto_continue` after a
 * threshold compaction (optionally with the synthetic prompt), `overflow_retry` after an
 * overflow compaction (the failed request is retried, so no message).
 */
export function requestContinuation(command: RequestContinuation, state: ActiveSessionState): SessionEvent[] {
  const { reason, causationAttemptId, message } = command.data;
  const attempt = state.getAttempt(causationAttemptId);
  if (!attempt) throw notFound(`attempt ${causationAttemptId} not found`, { attemptId: causationAttemptId });
  if (attempt.kind !== 'compaction') {
    throw invalid(`a continuation follows a compaction, not a ${kindNames[attempt.kind]}`, {
      attemptId: causationAttemptId,
    });
  }
  if (attempt.continuation !== null) return [];
  if (attempt.outcome?.type !== 'CompactionCompleted') {
    throw conflict(`compaction ${causationAttemptId} has not completed`, {
      attemptId: causationAttemptId,
      outcome: attempt.outcome?.type ?? null,
    });
  }
  if (attempt.started.trigger !== triggerOfReason[reason]) {
    throw invalid(`${reason} does not follow a ${attempt.started.trigger} compaction`, {
      reason,
      trigger: attempt.started.trigger,
    });
  }
  if (message !== undefined && (reason === 'overflow_retry' || message.synthetic !== true)) {
    throw invalid('only an auto-continue may carry a message, and it must be marked synthetic', { reason });
  }
  return [
    { type: 'ContinuationRequested', data: { reason, causationAttemptId, ...(message ? { message } : {}) } },
  ];
}
