// Decisions about compaction attempts (the commands the attempt workflow's steps send) and the
// continuation that may follow a completed one. Every outcome carries what the audit needs
// (trigger, model, usage, duration, tokens before and after), the facts of the attempt's start
// copied here so callers cannot record them differently; a completed compaction appends its
// entry at the leaf in the same batch.
import { recordedInstructions, requireEntryFields } from './decide-entries';
import {
  alreadyStarted,
  kindNames,
  openAttempt,
  recordedError,
  requireAttemptId,
  requireBoundedUsage,
  requireCount,
  requireEntryOrNull,
  requireReason,
  requireTime,
  summariserFields,
  summaryCallsFields,
} from './decide-attempts';
import type {
  CancelCompaction,
  FailCompaction,
  RecordCompaction,
  RequestContinuation,
  SkipCompaction,
  StartCompaction,
} from './session-commands';
import { alreadyExists, conflict, invalid, notFound } from './session-domain-error';
import type { SessionEvent } from './session-events';
import type { ActiveSessionState, CompactionAttempt } from './session-state';

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
