// The audit's document: one compaction or branch-summary attempt with its single outcome
// (DESIGN.md decision 2), and its pure `evolve`. Attempts of every session land here, so an
// auditor can list them by tenant or session.
import { z } from 'zod';
import {
  compactionTriggerSchema,
  continuationReasonSchema,
  type CompactionTrigger,
  type ContinuationReason,
  type SessionEventType,
  type Usage,
} from '@strata/session';
import type { DocumentProjectionDefinition, ProjectionDocument } from '../documents/document-projection';
import type { ProjectedEvent } from '../runner/projected-event';

export const AUDIT_PROJECTION_NAME = 'audit';

export const auditAttemptKinds = ['compaction', 'branch_summary'] as const;
export type AuditAttemptKind = (typeof auditAttemptKinds)[number];

export const auditOutcomes = ['pending', 'completed', 'skipped', 'cancelled', 'failed'] as const;
export type AuditOutcome = (typeof auditOutcomes)[number];

export interface AuditUsage {
  readonly input: number;
  readonly output: number;
  readonly totalTokens: number | null;
  readonly cost: number | null;
}

export interface AuditAttempt extends ProjectionDocument {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly tenant: string;
  readonly kind: AuditAttemptKind;
  /** Compactions only. */
  readonly trigger: CompactionTrigger | null;
  /** `pending` until the one terminal event arrives. */
  readonly outcome: AuditOutcome;
  /** Why it was skipped or cancelled. */
  readonly reason: string | null;
  readonly error: { readonly message: string; readonly code: string | null } | null;
  /** "provider/modelId": the completed attempt's, else the one known at start. */
  readonly model: string | null;
  /** Compactions: the context size when prepared, and the estimate after. */
  readonly tokensBefore: number | null;
  readonly estimatedTokensAfter: number | null;
  /** Usage of the summariser's request (completed attempts). */
  readonly usage: AuditUsage | null;
  /** Completed: as measured by the engine; other outcomes: between the store's records of start and end. */
  readonly durationMs: number | null;
  /** When the engine started the attempt (ISO). */
  readonly startedAt: string;
  /** When the store recorded the start and the outcome. */
  readonly startRecordedAt: string;
  readonly endedAt: string | null;
  /** The `compaction` or `branch_summary` entry written by a completed attempt. */
  readonly entryId: string | null;
  /** Compactions: the leaf prepared at and the first entry kept. */
  readonly preparedAtLeafId: string | null;
  readonly firstKeptEntryId: string | null;
  /** Branch summaries: the navigation target, the leaf left, and where navigation landed. */
  readonly targetId: string | null;
  readonly oldLeafId: string | null;
  readonly newLeafId: string | null;
  /** A continuation requested after this compaction. */
  readonly continuation: ContinuationReason | null;
  /** The global position of the start event (the audit's order). */
  readonly startPosition: bigint;
}

const nullableText = z.string().nullable();
const nullableCount = z.number().nullable();

/** The stored form of an audit document (its positions are kept beside it). */
export const storedAuditAttemptSchema = z.object({
  sessionId: z.string(),
  attemptId: z.string(),
  tenant: z.string(),
  kind: z.enum(auditAttemptKinds),
  trigger: compactionTriggerSchema.nullable(),
  outcome: z.enum(auditOutcomes),
  reason: nullableText,
  error: z.object({ message: z.string(), code: nullableText }).nullable(),
  model: nullableText,
  tokensBefore: nullableCount,
  estimatedTokensAfter: nullableCount,
  usage: z
    .object({ input: z.number(), output: z.number(), totalTokens: nullableCount, cost: nullableCount })
    .nullable(),
  durationMs: nullableCount,
  startedAt: z.string(),
  startRecordedAt: z.string(),
  endedAt: nullableText,
  entryId: nullableText,
  preparedAtLeafId: nullableText,
  firstKeptEntryId: nullableText,
  targetId: nullableText,
  oldLeafId: nullableText,
  newLeafId: nullableText,
  continuation: continuationReasonSchema.nullable(),
}) satisfies z.ZodType<Omit<AuditAttempt, 'position' | 'startPosition'>>;

export const auditEventTypes: readonly SessionEventType[] = [
  'CompactionStarted',
  'CompactionCompleted',
  'CompactionSkipped',
  'CompactionCancelled',
  'CompactionFailed',
  'BranchSummaryStarted',
  'BranchSummaryCompleted',
  'BranchSummarySkipped',
  'BranchSummaryCancelled',
  'BranchSummaryFailed',
  'ContinuationRequested',
];

function isoOfMillis(millis: number): string {
  const date = new Date(millis);
  return Number.isFinite(date.getTime()) ? date.toISOString() : new Date(0).toISOString();
}

function recordedDuration(attempt: AuditAttempt, endedAt: string): number | null {
  const duration = Date.parse(endedAt) - Date.parse(attempt.startRecordedAt);
  return Number.isFinite(duration) ? Math.max(0, duration) : null;
}

function usageOf(usage: Usage): AuditUsage {
  return {
    input: usage.input,
    output: usage.output,
    totalTokens: usage.totalTokens ?? null,
    cost: usage.cost?.total ?? null,
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
      });
    }
    case 'CompactionCompleted': {
      const data = event.data;
      return ended(attempt, projected, 'compaction', {
        outcome: 'completed',
        entryId: data.entryId,
        model: data.model ?? attempt?.model ?? null,
        usage: data.usage !== undefined ? usageOf(data.usage) : null,
        durationMs: data.durationMs,
        tokensBefore: data.tokensBefore,
        estimatedTokensAfter: data.estimatedTokensAfter,
      });
    }
    case 'BranchSummaryCompleted': {
      const data = event.data;
      return ended(attempt, projected, 'branch_summary', {
        outcome: 'completed',
        entryId: data.entryId,
        newLeafId: data.newLeafId,
        model: data.model ?? attempt?.model ?? null,
        usage: data.usage !== undefined ? usageOf(data.usage) : null,
        durationMs: data.durationMs,
      });
    }
    case 'CompactionSkipped':
      return ended(attempt, projected, 'compaction', { outcome: 'skipped', reason: event.data.reason });
    case 'CompactionCancelled':
      return ended(attempt, projected, 'compaction', { outcome: 'cancelled', reason: event.data.reason });
    case 'CompactionFailed':
      return ended(attempt, projected, 'compaction', { outcome: 'failed', error: errorOf(event.data.error) });
    case 'BranchSummarySkipped':
      return ended(attempt, projected, 'branch_summary', { outcome: 'skipped', reason: event.data.reason });
    case 'BranchSummaryCancelled':
      return ended(attempt, projected, 'branch_summary', { outcome: 'cancelled', reason: event.data.reason });
    case 'BranchSummaryFailed':
      return ended(attempt, projected, 'branch_summary', {
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
};
