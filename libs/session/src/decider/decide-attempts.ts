// What the decisions about compaction and branch-summary attempts share. An attempt starts once
// (a repeated start is a no-op; the same id as another kind is refused) and ends exactly once: a
// second outcome is refused with `already_exists`, which is what makes a redelivered saga
// command harmless. The checks their commands' figures must pass, and the fields every outcome
// records as checked (summariser, usage, summary calls, errors).
import { identifierProblem } from '../entries/identifiers';
import type { Usage } from '../entries/messages';
import { isBoundedUsage, MAX_COST_FIGURE, MAX_TOKEN_FIGURE } from '../entries/usage-bounds';
import { isCount, isTime } from './decide-entries';
import type { SummaryCallsRecord } from './session-commands';
import { alreadyExists, invalid, notFound } from './session-domain-error';
import {
  MAX_SUMMARY_CALLS,
  MAX_SUMMARY_CALL_ERROR_LENGTH,
  MAX_SUMMARY_CALL_NAME_LENGTH,
  type AttemptError,
  type SummaryCall,
} from './session-events';
import type { ActiveSessionState, SessionAttempt } from './session-state';

type AttemptKind = SessionAttempt['kind'];
type AttemptOfKind<Kind extends AttemptKind> = Extract<SessionAttempt, { kind: Kind }>;

export const kindNames: Record<AttemptKind, string> = {
  compaction: 'compaction',
  branch_summary: 'branch summary',
};

function isOfKind<Kind extends AttemptKind>(
  attempt: SessionAttempt,
  kind: Kind,
): attempt is AttemptOfKind<Kind> {
  return attempt.kind === kind;
}

/** True when `attemptId` already started as `kind` (so a start is a no-op); refuses another kind. */
export function alreadyStarted(state: ActiveSessionState, attemptId: string, kind: AttemptKind): boolean {
  const existing = state.getAttempt(attemptId);
  if (!existing) return false;
  if (existing.kind !== kind) {
    throw alreadyExists(`attempt id ${attemptId} belongs to a ${kindNames[existing.kind]}`, { attemptId });
  }
  return true;
}

export function openAttempt<Kind extends AttemptKind>(
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

export function requireCount(name: string, value: number): void {
  if (!isCount(value)) throw invalid(`${name} must be a non-negative safe integer`, { [name]: value });
}

export function requireTime(name: string, value: number): void {
  if (!isTime(value))
    throw invalid(`${name} must be a non-negative number of milliseconds`, { [name]: value });
}

export function requireAttemptId(attemptId: string): void {
  const problem = identifierProblem(attemptId);
  if (problem !== undefined) throw invalid(`attempt id ${problem}`, { attemptId });
}

export function requireBoundedUsage(usage: Usage | undefined): void {
  if (usage !== undefined && !isBoundedUsage(usage)) {
    throw invalid(
      `usage figures must be non-negative, tokens at most ${MAX_TOKEN_FIGURE}, costs at most ${MAX_COST_FIGURE}`,
    );
  }
}

export function requireReason(reason: string): void {
  if (reason.length === 0) throw invalid('a reason is required');
}

export function requireEntryOrNull(state: ActiveSessionState, entryId: string | null, role: string): void {
  if (entryId !== null && !state.hasEntry(entryId)) {
    throw notFound(`${role} ${entryId} not found`, { entryId });
  }
}

export function summariserFields(model: string | undefined, usage: Usage | undefined) {
  return { ...(model !== undefined ? { model } : {}), ...(usage !== undefined ? { usage } : {}) };
}

function requireBoundedText(name: string, value: string | undefined, bound: number): void {
  if (value !== undefined && value.length > bound) {
    throw invalid(`${name} must be at most ${bound} characters`, { length: value.length });
  }
}

/** The summary calls as an outcome records them, each checked (bounded names, figures and errors). */
export function summaryCallsFields(record: SummaryCallsRecord): {
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

export function recordedError(error: AttemptError): AttemptError {
  return { message: error.message, ...(error.code !== undefined ? { code: error.code } : {}) };
}
