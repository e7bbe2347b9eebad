// The audit's pure `evolve` (STYLE.md habit 8): a start event creates the attempt (with its
// instructions and who started it, from the start's metadata), the first outcome of its kind
// ends it with the facts it carries (its summary calls among them; outcomes stored before they
// carried them keep what the start recorded, and the duration between the store's records), a
// continuation request marks it; and the document each event belongs to.
import { boundedUsage, type CompactionTrigger, type SummaryCall, type Usage } from '@strata/session';
import type { DocumentProjectionDefinition } from '../documents/document-projection';
import type { ProjectedEvent } from '../runner/projected-event';
import {
  AUDIT_PROJECTION_NAME,
  auditEventTypes,
  type AuditAttempt,
  type AuditAttemptKind,
  type AuditSummaryCall,
  type AuditUsage,
} from './audit-attempt';

function isoOfMillis(millis: number): string {
  const date = new Date(millis);
  return Number.isFinite(date.getTime()) ? date.toISOString() : new Date(0).toISOString();
}

function recordedDuration(attempt: AuditAttempt, endedAt: string): number | null {
  const duration = Date.parse(endedAt) - Date.parse(attempt.startRecordedAt);
  return Number.isFinite(duration) ? Math.max(0, duration) : null;
}

/** The summariser's figures, brought into the bounds of usage-bounds.ts (older records may lie outside). */
function usageOf(recorded: Usage): AuditUsage {
  const usage = boundedUsage(recorded);
  return {
    input: usage.input,
    output: usage.output,
    totalTokens: usage.totalTokens ?? null,
    cost: usage.cost?.total ?? null,
  };
}

function summaryCallOf(call: SummaryCall): AuditSummaryCall {
  return {
    purpose: call.purpose,
    summarizer: call.summarizer,
    retry: call.retry,
    model: call.model ?? null,
    usage: call.usage !== undefined ? usageOf(call.usage) : null,
    durationMs: call.durationMs,
    error: call.error !== undefined ? errorOf(call.error) : null,
  };
}

/** What a terminal event may carry about its attempt, whichever kind and outcome. */
interface OutcomeFacts {
  readonly summaryCalls?: readonly SummaryCall[];
  readonly summaryCallsOmitted?: number;
  readonly trigger?: CompactionTrigger;
  readonly model?: string;
  readonly usage?: Usage;
  readonly durationMs?: number;
  readonly tokensBefore?: number;
  readonly estimatedTokensAfter?: number;
  readonly targetId?: string;
  readonly oldLeafId?: string | null;
}

/** The facts an outcome carries; those it lacks stay as the start recorded them. */
function factsOf(data: OutcomeFacts): Partial<AuditAttempt> {
  return {
    ...(data.trigger !== undefined ? { trigger: data.trigger } : {}),
    ...(data.model !== undefined ? { model: data.model } : {}),
    ...(data.usage !== undefined ? { usage: usageOf(data.usage) } : {}),
    ...(data.durationMs !== undefined ? { durationMs: data.durationMs } : {}),
    ...(data.tokensBefore !== undefined ? { tokensBefore: data.tokensBefore } : {}),
    ...(data.estimatedTokensAfter !== undefined ? { estimatedTokensAfter: data.estimatedTokensAfter } : {}),
    ...(data.targetId !== undefined ? { targetId: data.targetId } : {}),
    ...(data.oldLeafId !== undefined ? { oldLeafId: data.oldLeafId } : {}),
    ...(data.summaryCalls !== undefined ? { summaryCalls: data.summaryCalls.map(summaryCallOf) } : {}),
    ...(data.summaryCallsOmitted !== undefined ? { summaryCallsOmitted: data.summaryCallsOmitted } : {}),
  };
}

type StartFields = Pick<AuditAttempt, 'kind' | 'attemptId' | 'startedAt'> & Partial<AuditAttempt>;

function started(projected: ProjectedEvent, fields: StartFields): AuditAttempt {
  return {
    sessionId: projected.sessionId,
    tenant: projected.tenant,
    trigger: null,
    outcome: 'pending',
    reason: null,
    error: null,
    model: null,
    tokensBefore: null,
    estimatedTokensAfter: null,
    usage: null,
    durationMs: null,
    startRecordedAt: projected.recordedAt,
    endedAt: null,
    entryId: null,
    preparedAtLeafId: null,
    firstKeptEntryId: null,
    targetId: null,
    oldLeafId: null,
    newLeafId: null,
    continuation: null,
    customInstructions: null,
    force: false,
    actor: projected.actor ?? null,
    onBehalfOf: projected.onBehalfOf ?? null,
    summaryCalls: [],
    summaryCallsOmitted: 0,
    startPosition: projected.position,
    position: projected.position,
    ...fields,
  };
}

/** An outcome ends a pending attempt of its own kind once; later or mismatched ones change nothing. */
function ended(
  attempt: AuditAttempt | null,
  projected: ProjectedEvent,
  kind: AuditAttemptKind,
  fields: Partial<AuditAttempt> & Pick<AuditAttempt, 'outcome'>,
): AuditAttempt | null {
  if (attempt === null || attempt.kind !== kind || attempt.outcome !== 'pending') return attempt;
  const endedAt = projected.recordedAt;
  return {
    ...attempt,
    durationMs: recordedDuration(attempt, endedAt),
    endedAt,
    ...fields,
    position: projected.position,
  };
}

/**
 * The audit's evolve: a start event creates the attempt (a repeated start changes nothing), the
 * first outcome of the same kind ends it, and a continuation request marks its compaction.
 */
export function evolveAuditAttempt(
  attempt: AuditAttempt | null,
  projected: ProjectedEvent,
): AuditAttempt | null {
  const { event } = projected;
  switch (event.type) {
    case 'CompactionStarted': {
      if (attempt !== null) return attempt;
      const data = event.data;
      return started(projected, {
        kind: 'compaction',
        attemptId: data.attemptId,
        trigger: data.trigger,
        model: data.model ?? null,
        tokensBefore: data.tokensBefore,
        preparedAtLeafId: data.preparedAtLeafId,
        firstKeptEntryId: data.firstKeptEntryId ?? null,
        startedAt: isoOfMillis(data.startedAt),
        customInstructions: data.customInstructions ?? null,
        force: data.force === true,
      });
    }
    case 'BranchSummaryStarted': {
      if (attempt !== null) return attempt;
      const data = event.data;
      return started(projected, {
        kind: 'branch_summary',
        attemptId: data.attemptId,
        model: data.model ?? null,
        targetId: data.targetId,
        oldLeafId: data.oldLeafId,
        startedAt: isoOfMillis(data.startedAt),
        customInstructions: data.customInstructions ?? null,
      });
    }
    case 'CompactionCompleted':
      return ended(attempt, projected, 'compaction', {
        ...factsOf(event.data),
        outcome: 'completed',
        entryId: event.data.entryId,
      });
    case 'BranchSummaryCompleted':
      return ended(attempt, projected, 'branch_summary', {
        ...factsOf(event.data),
        outcome: 'completed',
        entryId: event.data.entryId,
        newLeafId: event.data.newLeafId,
      });
    case 'CompactionSkipped':
      return ended(attempt, projected, 'compaction', {
        ...factsOf(event.data),
        outcome: 'skipped',
        reason: event.data.reason,
      });
    case 'CompactionCancelled':
      return ended(attempt, projected, 'compaction', {
        ...factsOf(event.data),
        outcome: 'cancelled',
        reason: event.data.reason,
      });
    case 'CompactionFailed':
      return ended(attempt, projected, 'compaction', {
        ...factsOf(event.data),
        outcome: 'failed',
        error: errorOf(event.data.error),
      });
    case 'BranchSummarySkipped':
      return ended(attempt, projected, 'branch_summary', {
        ...factsOf(event.data),
        outcome: 'skipped',
        reason: event.data.reason,
      });
    case 'BranchSummaryCancelled':
      return ended(attempt, projected, 'branch_summary', {
        ...factsOf(event.data),
        outcome: 'cancelled',
        reason: event.data.reason,
      });
    case 'BranchSummaryFailed':
      return ended(attempt, projected, 'branch_summary', {
        ...factsOf(event.data),
        outcome: 'failed',
        error: errorOf(event.data.error),
      });
    case 'ContinuationRequested':
      if (attempt === null || attempt.kind !== 'compaction' || attempt.continuation !== null) return attempt;
      return { ...attempt, continuation: event.data.reason, position: projected.position };
    case 'SessionStarted':
    case 'EntryAppended':
    case 'LeafMoved':
    case 'ToolOutputsPruned':
    case 'LeaseTaken':
    case 'LeaseRenewed':
    case 'LeaseReleased':
    case 'LeaseExpired':
      return attempt;
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled session event ${JSON.stringify(unhandled)}`);
    }
  }
}

function errorOf(error: { message: string; code?: string }): { message: string; code: string | null } {
  return { message: error.message, code: error.code ?? null };
}

/** The document an audit event belongs to: `<sessionId>/<attemptId>`. */
export function auditDocumentId(projected: ProjectedEvent): string {
  const { event } = projected;
  switch (event.type) {
    case 'ContinuationRequested':
      return `${projected.sessionId}/${event.data.causationAttemptId}`;
    case 'CompactionStarted':
    case 'CompactionCompleted':
    case 'CompactionSkipped':
    case 'CompactionCancelled':
    case 'CompactionFailed':
    case 'BranchSummaryStarted':
    case 'BranchSummaryCompleted':
    case 'BranchSummarySkipped':
    case 'BranchSummaryCancelled':
    case 'BranchSummaryFailed':
      return `${projected.sessionId}/${event.data.attemptId}`;
    case 'SessionStarted':
    case 'EntryAppended':
    case 'LeafMoved':
    case 'ToolOutputsPruned':
    case 'LeaseTaken':
    case 'LeaseRenewed':
    case 'LeaseReleased':
    case 'LeaseExpired':
      return `${projected.sessionId}/`;
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled session event ${JSON.stringify(unhandled)}`);
    }
  }
}

export const auditProjectionDefinition: DocumentProjectionDefinition<AuditAttempt> = {
  name: AUDIT_PROJECTION_NAME,
  eventTypes: auditEventTypes,
  documentId: auditDocumentId,
  evolve: evolveAuditAttempt,
  sessionOf: (document) => document.sessionId,
};
