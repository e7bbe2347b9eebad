// The audit's document: one compaction or branch-summary attempt with its single outcome
// (DESIGN.md decision 2), its stored form, and the events it is made of (evolve in
// audit-evolve.ts). Attempts of every session land here, so an auditor can list them by
// tenant or session.
import { z } from 'zod';
import {
  compactionTriggerSchema,
  continuationReasonSchema,
  summaryPurposes,
  type CompactionTrigger,
  type ContinuationReason,
  type SessionEventType,
  type SummaryPurpose,
} from '@strata/session';
import type { ProjectionDocument } from '../documents/document-projection';

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

/** One request sent to a summariser candidate during the attempt (the outcome's `summaryCalls`). */
export interface AuditSummaryCall {
  readonly purpose: SummaryPurpose;
  /** The candidate tried, by its configured name. */
  readonly summarizer: string;
  /** 0 for its first try at the request, then its retries. */
  readonly retry: number;
  /** The model as the provider reported it; null for a failed try. */
  readonly model: string | null;
  readonly usage: AuditUsage | null;
  readonly durationMs: number;
  /** Why the try failed; null for an answer. */
  readonly error: { readonly message: string; readonly code: string | null } | null;
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
  /** Compactions: the context size when prepared, and the estimate after (as it stays, when not compacted). */
  readonly tokensBefore: number | null;
  readonly estimatedTokensAfter: number | null;
  /** What the summariser spent (every outcome after it answered; none for older non-completed ones). */
  readonly usage: AuditUsage | null;
  /** As the engine measured it; for outcomes stored before they carried it, between the store's records. */
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
  /** What the request asked the summary to focus on, as recorded on the start; null when nothing. */
  readonly customInstructions: string | null;
  /** Compactions: forced (`force: true`: it keeps less when the keep budget would keep all). */
  readonly force: boolean;
  /** Who started the attempt (the start event's actor: an API key's name, `strata-engine` for a saga). */
  readonly actor: string | null;
  /** Who that caller acted for (`X-Strata-Actor`), when it said. */
  readonly onBehalfOf: string | null;
  /** Every summary request of the attempt, answered or failed, in order (the latest when there were more). */
  readonly summaryCalls: readonly AuditSummaryCall[];
  /** Calls made beyond those listed. */
  readonly summaryCallsOmitted: number;
  /** The global position of the start event (the audit's order). */
  readonly startPosition: bigint;
}

const nullableText = z.string().nullable();
const nullableCount = z.number().nullable();
const storedUsageSchema = z.object({
  input: z.number(),
  output: z.number(),
  totalTokens: nullableCount,
  cost: nullableCount,
});
const storedErrorSchema = z.object({ message: z.string(), code: nullableText });
const storedSummaryCallSchema = z.object({
  purpose: z.enum(summaryPurposes),
  summarizer: z.string(),
  retry: z.number(),
  model: nullableText,
  usage: storedUsageSchema.nullable(),
  durationMs: z.number(),
  error: storedErrorSchema.nullable(),
});

/** The stored form of an audit document (its positions are kept beside it). */
export const storedAuditAttemptSchema = z.object({
  sessionId: z.string(),
  attemptId: z.string(),
  tenant: z.string(),
  kind: z.enum(auditAttemptKinds),
  trigger: compactionTriggerSchema.nullable(),
  outcome: z.enum(auditOutcomes),
  reason: nullableText,
  error: storedErrorSchema.nullable(),
  model: nullableText,
  tokensBefore: nullableCount,
  estimatedTokensAfter: nullableCount,
  usage: storedUsageSchema.nullable(),
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
  // Documents stored before these fields existed read as null (a replay fills them in).
  customInstructions: nullableText.default(null),
  force: z.boolean().default(false),
  actor: nullableText.default(null),
  onBehalfOf: nullableText.default(null),
  summaryCalls: z.array(storedSummaryCallSchema).default([]),
  summaryCallsOmitted: z.number().default(0),
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
