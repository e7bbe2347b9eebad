// The events of a session stream `session-<id>` (DESIGN.md decision 2): one `EntryAppended`
// per pi entry (its data is the whole entry, so a pi v3 file round-trips losslessly) plus the
// engine facts pi kept in memory — leaf moves, tool-output pruning, and every compaction or
// branch-summary attempt with exactly one terminal outcome. Events are past tense and carry
// only `{ type, data }`; the store layer adds metadata. The schemas guard the trust boundary
// where events are read back from a store; the types are inferred from them.
import { z } from 'zod';
import { recordedSessionEntrySchema, recordedSessionHeaderSchema } from '../entries/entries';
import { usageSchema, userMessageSchema } from '../entries/messages';
import type { SummaryPurpose } from '../compaction/summary-request';
import {
  leaseExpiredSchema,
  leaseReleasedSchema,
  leaseRenewedSchema,
  leaseTakenSchema,
} from './lease-events';

export const SESSION_STREAM_PREFIX = 'session-';

export function sessionStreamName(sessionId: string): string {
  return `${SESSION_STREAM_PREFIX}${sessionId}`;
}

export const compactionTriggers = ['manual', 'threshold', 'overflow'] as const;
export const compactionTriggerSchema = z.enum(compactionTriggers);
export type CompactionTrigger = z.infer<typeof compactionTriggerSchema>;

export const continuationReasons = ['auto_continue', 'overflow_retry'] as const;
export const continuationReasonSchema = z.enum(continuationReasons);
export type ContinuationReason = z.infer<typeof continuationReasonSchema>;

const id = z.string().min(1);
const count = z.number().int().nonnegative();
const millis = z.number().nonnegative();

export const attemptErrorSchema = z.object({ message: z.string(), code: z.string().optional() });
export type AttemptError = z.infer<typeof attemptErrorSchema>;

/** The longest `customInstructions` an attempt records (and a request may give), in UTF-16 code units. */
export const MAX_CUSTOM_INSTRUCTIONS_LENGTH = 10_000;
/** What a compaction or navigation asked the summariser to focus on, as given. */
export const customInstructionsSchema = z.string().max(MAX_CUSTOM_INSTRUCTIONS_LENGTH);

/** Why a navigation that asked for a branch summary wrote none. */
export const summaryDeclinedReasons = ['disabled', 'nothing_to_summarize'] as const;
export const summaryDeclinedSchema = z.enum(summaryDeclinedReasons);
export type SummaryDeclinedReason = z.infer<typeof summaryDeclinedSchema>;

/** What a summary request was for (`SummaryPurpose` of the summary requests). */
export const summaryPurposes = [
  'history',
  'turn-prefix',
  'short-summary',
  'branch',
] as const satisfies readonly SummaryPurpose[];

/** Summary calls an outcome lists at most; more are counted in `summaryCallsOmitted`. */
export const MAX_SUMMARY_CALLS = 64;
/** The longest summariser or model name, and error message, a summary call records. */
export const MAX_SUMMARY_CALL_NAME_LENGTH = 256;
export const MAX_SUMMARY_CALL_ERROR_LENGTH = 2_000;

/**
 * One request sent to one summariser candidate during an attempt: what it was for, which
 * candidate (its configured name) and which try of it, how long it took, and either what the
 * provider answered with (the model it reported, the usage) or why it failed.
 */
export const summaryCallSchema = z.object({
  purpose: z.enum(summaryPurposes),
  summarizer: z.string(),
  /** 0 for the candidate's first try at this request, then 1, 2, … for its retries. */
  retry: count,
  /** The model as the provider reported it (an answered call). */
  model: z.string().optional(),
  usage: usageSchema.optional(),
  durationMs: millis,
  /** Why the try failed (a failed call). */
  error: attemptErrorSchema.optional(),
});
export type SummaryCall = z.infer<typeof summaryCallSchema>;

/** The summary calls an outcome records (optional: outcomes stored before them, or with no call). */
const summaryCallFields = {
  summaryCalls: z.array(summaryCallSchema).optional(),
  /** Calls made beyond the MAX_SUMMARY_CALLS listed (the earliest are the ones left out). */
  summaryCallsOmitted: count.optional(),
};

export const prunedToolOutputSchema = z.object({ entryId: id, tokens: count });
export type PrunedToolOutput = z.infer<typeof prunedToolOutputSchema>;

export const sessionStartedSchema = z.object({
  type: z.literal('SessionStarted'),
  data: z.object({ header: recordedSessionHeaderSchema }),
});

export const entryAppendedSchema = z.object({
  type: z.literal('EntryAppended'),
  data: z.object({ entry: recordedSessionEntrySchema }),
});

export const leafMovedSchema = z.object({
  type: z.literal('LeafMoved'),
  data: z.object({
    leafId: id.nullable(),
    previousLeafId: id.nullable(),
    /**
     * A navigation that asked for a branch summary and moved without one: why (`disabled`:
     * `branchSummary.enabled` is off; `nothing_to_summarize`: the branch left holds nothing).
     */
    summaryDeclined: summaryDeclinedSchema.optional(),
    /** The instructions that navigation gave for the summary it did not get. */
    customInstructions: customInstructionsSchema.optional(),
  }),
});

export const toolOutputsPrunedSchema = z.object({
  type: z.literal('ToolOutputsPruned'),
  data: z.object({
    prunedAt: millis,
    results: z.array(prunedToolOutputSchema),
    tokensSaved: count,
    /** The assistant answer the pruning was decided after (sagas); absent on older events. */
    answerEntryId: id.optional(),
  }),
});

export const compactionStartedSchema = z.object({
  type: z.literal('CompactionStarted'),
  data: z.object({
    attemptId: id,
    trigger: compactionTriggerSchema,
    /** The leaf the compaction was prepared at; null for an empty session. */
    preparedAtLeafId: id.nullable(),
    firstKeptEntryId: id.optional(),
    tokensBefore: count,
    /** "provider/modelId" of the summariser, when known at start. */
    model: z.string().optional(),
    startedAt: millis,
    /** What the request asked the summary to focus on, as given (absent: nothing). */
    customInstructions: customInstructionsSchema.optional(),
    /** The compaction was forced (issue 13.4): it keeps less when the keep budget would keep all. */
    force: z.literal(true).optional(),
  }),
});

export const compactionCompletedSchema = z.object({
  type: z.literal('CompactionCompleted'),
  data: z.object({
    attemptId: id,
    /** The id of the `compaction` entry appended with this outcome. */
    entryId: id,
    trigger: compactionTriggerSchema,
    model: z.string().optional(),
    usage: usageSchema.optional(),
    durationMs: millis,
    tokensBefore: count,
    estimatedTokensAfter: count,
    ...summaryCallFields,
  }),
});

/**
 * What every terminal event of a compaction attempt carries besides its outcome (issue 4 part
 * 2): the attempt's trigger, the summariser's model and usage when known, the duration the
 * engine measured, the context estimate before, and the estimate after. For an attempt that did
 * not compact, the estimate after is the context as it stays: `tokensBefore` unless the engine
 * knew otherwise. The decider always writes trigger, duration and both estimates (trigger and
 * tokens before are copied from the attempt's `CompactionStarted`); they are optional here only
 * so outcomes stored before they existed still parse — read those through the attempt's start.
 */
const compactionOutcomeFields = {
  trigger: compactionTriggerSchema.optional(),
  model: z.string().optional(),
  usage: usageSchema.optional(),
  durationMs: millis.optional(),
  tokensBefore: count.optional(),
  estimatedTokensAfter: count.optional(),
  ...summaryCallFields,
};

export const compactionSkippedSchema = z.object({
  type: z.literal('CompactionSkipped'),
  data: z.object({ attemptId: id, reason: z.string().min(1), ...compactionOutcomeFields }),
});

export const compactionCancelledSchema = z.object({
  type: z.literal('CompactionCancelled'),
  data: z.object({ attemptId: id, reason: z.string().min(1), ...compactionOutcomeFields }),
});

export const compactionFailedSchema = z.object({
  type: z.literal('CompactionFailed'),
  data: z.object({ attemptId: id, error: attemptErrorSchema, ...compactionOutcomeFields }),
});

export const branchSummaryStartedSchema = z.object({
  type: z.literal('BranchSummaryStarted'),
  data: z.object({
    attemptId: id,
    /** The entry the user navigates to. */
    targetId: id,
    /** The leaf being left (the end of the branch to summarise); null when there was none. */
    oldLeafId: id.nullable(),
    model: z.string().optional(),
    startedAt: millis,
    /** The instructions the navigation gave for the summary, as given (absent: none). */
    customInstructions: customInstructionsSchema.optional(),
  }),
});

/**
 * What every terminal event of a branch-summary attempt carries besides its outcome: the
 * navigation it belonged to (copied by the decider from `BranchSummaryStarted`), the
 * summariser's model and usage when known, and the duration the engine measured. Optional here
 * only so outcomes stored before they existed still parse; the decider always writes
 * `targetId`, `oldLeafId` and `durationMs`.
 */
const branchSummaryOutcomeFields = {
  targetId: id.optional(),
  oldLeafId: id.nullable().optional(),
  model: z.string().optional(),
  usage: usageSchema.optional(),
  durationMs: millis.optional(),
  ...summaryCallFields,
};

export const branchSummaryCompletedSchema = z.object({
  type: z.literal('BranchSummaryCompleted'),
  data: z.object({
    attemptId: id,
    /** The id of the `branch_summary` entry appended with this outcome. */
    entryId: id,
    /** Where navigation landed: the summary's parent (null = before the first entry). */
    newLeafId: id.nullable(),
    ...branchSummaryOutcomeFields,
    durationMs: millis,
  }),
});

export const branchSummarySkippedSchema = z.object({
  type: z.literal('BranchSummarySkipped'),
  data: z.object({ attemptId: id, reason: z.string().min(1), ...branchSummaryOutcomeFields }),
});

export const branchSummaryCancelledSchema = z.object({
  type: z.literal('BranchSummaryCancelled'),
  data: z.object({ attemptId: id, reason: z.string().min(1), ...branchSummaryOutcomeFields }),
});

export const branchSummaryFailedSchema = z.object({
  type: z.literal('BranchSummaryFailed'),
  data: z.object({ attemptId: id, error: attemptErrorSchema, ...branchSummaryOutcomeFields }),
});

export const continuationRequestedSchema = z.object({
  type: z.literal('ContinuationRequested'),
  data: z.object({
    reason: continuationReasonSchema,
    /** The completed compaction attempt this continuation follows. */
    causationAttemptId: id,
    /** The synthetic prompt to send (auto-continue); absent when the last request is retried. */
    message: userMessageSchema.optional(),
  }),
});

export const sessionEventSchema = z.discriminatedUnion('type', [
  sessionStartedSchema,
  entryAppendedSchema,
  leafMovedSchema,
  toolOutputsPrunedSchema,
  compactionStartedSchema,
  compactionCompletedSchema,
  compactionSkippedSchema,
  compactionCancelledSchema,
  compactionFailedSchema,
  branchSummaryStartedSchema,
  branchSummaryCompletedSchema,
  branchSummarySkippedSchema,
  branchSummaryCancelledSchema,
  branchSummaryFailedSchema,
  continuationRequestedSchema,
  leaseTakenSchema,
  leaseRenewedSchema,
  leaseReleasedSchema,
  leaseExpiredSchema,
]);

type Frozen<Event extends { type: string; data: object }> = Event extends unknown
  ? { readonly type: Event['type']; readonly data: Readonly<Event['data']> }
  : never;

export type SessionEvent = Frozen<z.infer<typeof sessionEventSchema>>;
export type SessionEventType = SessionEvent['type'];
export type SessionEventOfType<Type extends SessionEventType> = Extract<SessionEvent, { type: Type }>;

export type SessionStartedEvent = SessionEventOfType<'SessionStarted'>;
export type EntryAppendedEvent = SessionEventOfType<'EntryAppended'>;
export type LeafMovedEvent = SessionEventOfType<'LeafMoved'>;
export type ToolOutputsPrunedEvent = SessionEventOfType<'ToolOutputsPruned'>;
export type CompactionStartedEvent = SessionEventOfType<'CompactionStarted'>;
export type CompactionCompletedEvent = SessionEventOfType<'CompactionCompleted'>;
export type CompactionSkippedEvent = SessionEventOfType<'CompactionSkipped'>;
export type CompactionCancelledEvent = SessionEventOfType<'CompactionCancelled'>;
export type CompactionFailedEvent = SessionEventOfType<'CompactionFailed'>;
export type BranchSummaryStartedEvent = SessionEventOfType<'BranchSummaryStarted'>;
export type BranchSummaryCompletedEvent = SessionEventOfType<'BranchSummaryCompleted'>;
export type BranchSummarySkippedEvent = SessionEventOfType<'BranchSummarySkipped'>;
export type BranchSummaryCancelledEvent = SessionEventOfType<'BranchSummaryCancelled'>;
export type BranchSummaryFailedEvent = SessionEventOfType<'BranchSummaryFailed'>;
export type ContinuationRequestedEvent = SessionEventOfType<'ContinuationRequested'>;
export type LeaseTakenEvent = SessionEventOfType<'LeaseTaken'>;
export type LeaseRenewedEvent = SessionEventOfType<'LeaseRenewed'>;
export type LeaseReleasedEvent = SessionEventOfType<'LeaseReleased'>;
export type LeaseExpiredEvent = SessionEventOfType<'LeaseExpired'>;
/** The events of the writer lease. */
export type LeaseEvent = LeaseTakenEvent | LeaseRenewedEvent | LeaseReleasedEvent | LeaseExpiredEvent;

/** The one outcome that ends a compaction attempt. */
export type CompactionOutcome =
  CompactionCompletedEvent | CompactionSkippedEvent | CompactionCancelledEvent | CompactionFailedEvent;
/** The one outcome that ends a branch-summary attempt. */
export type BranchSummaryOutcome =
  | BranchSummaryCompletedEvent
  | BranchSummarySkippedEvent
  | BranchSummaryCancelledEvent
  | BranchSummaryFailedEvent;

export const sessionEventTypes: readonly SessionEventType[] = sessionEventSchema.options.map(
  (option) => option.shape.type.value,
);

/** Parses an event read back from a store; throws a zod error when it does not match. */
export function parseSessionEvent(event: { readonly type: string; readonly data: unknown }): SessionEvent {
  return sessionEventSchema.parse({ type: event.type, data: event.data });
}
