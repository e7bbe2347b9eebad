// The engine's answers to compactions, navigations, aborts and labels, the verification of
// histories and the audit of attempts, as plain TypeScript types (see api-types.ts for how they
// are written and checked).
import type { PageQuery, SessionEntry, Usage } from './api-types';

export type CompactionTrigger = 'manual' | 'threshold' | 'overflow';

export interface CompactRequest {
  readonly customInstructions?: string;
  readonly trigger?: CompactionTrigger;
  readonly force?: boolean;
  /** Names the attempt: a repeated id answers its recorded outcome, so the call may be resent. */
  readonly attemptId?: string;
  /** The token of the session's writer lease; required while a lease is in force. */
  readonly leaseToken?: string;
}

export interface AttemptError {
  readonly message: string;
  readonly code?: string;
  readonly [field: string]: unknown;
}

interface CompactionOutcomeBase {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly trigger: CompactionTrigger;
  readonly redelivered: boolean;
}

export type CompactionResult =
  | (CompactionOutcomeBase & {
      readonly outcome: 'completed';
      readonly entry: SessionEntry;
      readonly fromExtension: boolean;
      readonly model?: string;
      readonly usage?: Usage;
      readonly durationMs: number;
      readonly tokensBefore: number;
      readonly estimatedTokensAfter: number;
    })
  | (CompactionOutcomeBase & { readonly outcome: 'skipped' | 'cancelled'; readonly reason: string })
  | (CompactionOutcomeBase & { readonly outcome: 'failed'; readonly error: AttemptError });

export interface NavigateOptions {
  /** Summarise the branch left behind. */
  readonly summarize?: boolean;
  readonly customInstructions?: string;
  /** Names the branch-summary attempt: a repeated id answers its recorded outcome. */
  readonly attemptId?: string;
  /** The token of the session's writer lease; required while a lease is in force. */
  readonly leaseToken?: string;
}

interface NavigationBase {
  readonly sessionId: string;
  readonly targetId: string;
  readonly oldLeafId: string | null;
  readonly leafId: string | null;
}

export type NavigationResult =
  | (NavigationBase & {
      readonly outcome: 'navigated';
      readonly editorText?: string;
      readonly summary?: {
        readonly attemptId: string;
        readonly entry: SessionEntry;
        readonly fromExtension: boolean;
        readonly model?: string;
        readonly usage?: Usage;
      };
      readonly summaryDeclined?: 'disabled' | 'nothing_to_summarize';
      readonly redelivered?: boolean;
    })
  | (NavigationBase & { readonly outcome: 'unchanged' })
  | (NavigationBase & { readonly outcome: 'cancelled'; readonly reason: string; readonly attemptId?: string })
  | (NavigationBase & { readonly outcome: 'skipped'; readonly reason: string; readonly attemptId: string })
  | (NavigationBase & {
      readonly outcome: 'failed';
      readonly error: AttemptError;
      readonly attemptId: string;
    });

export interface AbortRequest {
  readonly attemptId?: string;
  readonly kind?: 'compaction' | 'branch_summary';
}

export interface AbortResult {
  readonly sessionId: string;
  readonly abortedAttemptIds: readonly string[];
}

export interface SetLabelResult {
  readonly sessionId: string;
  readonly entry: SessionEntry;
  readonly revision: string | null;
  readonly alreadySet: boolean;
}

export interface ChainBreak {
  readonly revision: string;
  readonly eventId: string;
  readonly reason:
    | 'missing_seal'
    | 'revision_gap'
    | 'previous_hash_mismatch'
    | 'hash_mismatch'
    | 'time_mismatch'
    | 'time_backwards';
}

export interface SessionVerification {
  readonly sessionId: string;
  readonly ok: boolean;
  readonly events: number;
  readonly headHash: string | null;
  readonly brokenAt: ChainBreak | null;
}

export interface TenantVerification {
  readonly ok: boolean;
  readonly sessions: number;
  readonly events: number;
  readonly broken: readonly (ChainBreak & { readonly sessionId: string })[];
}

export interface AttemptsQuery extends PageQuery {
  readonly kind?: AttemptKind;
  readonly outcome?: AttemptOutcome;
  readonly order?: 'newest_first' | 'oldest_first';
}

export type AttemptKind = 'compaction' | 'branch_summary';
export type AttemptOutcome = 'pending' | 'completed' | 'skipped' | 'cancelled' | 'failed';

/** An attempt's recorded error, or one summary call's. */
export interface RecordedError {
  readonly message: string;
  readonly code: string | null;
}

/** Token counts an attempt or one summary call recorded. */
export interface RecordedUsage {
  readonly input: number;
  readonly output: number;
  readonly totalTokens: number | null;
  readonly cost: number | null;
}

/** One request an attempt sent to a summariser candidate, answered or failed. */
export interface SummaryCall {
  readonly purpose: 'history' | 'turn-prefix' | 'short-summary' | 'branch';
  readonly summarizer: string;
  /** 0 for its first try. */
  readonly retry: number;
  readonly model: string | null;
  readonly usage: RecordedUsage | null;
  readonly durationMs: number;
  readonly error: RecordedError | null;
}

export interface AuditAttempt {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly tenant: string;
  readonly kind: AttemptKind;
  readonly trigger: CompactionTrigger | null;
  readonly outcome: AttemptOutcome;
  readonly reason: string | null;
  readonly error: RecordedError | null;
  /** The model the provider reported it answered with. */
  readonly model: string | null;
  readonly tokensBefore: number | null;
  readonly estimatedTokensAfter: number | null;
  /** The sum of every summary call's usage. */
  readonly usage: RecordedUsage | null;
  readonly durationMs: number | null;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly entryId: string | null;
  readonly preparedAtLeafId: string | null;
  readonly firstKeptEntryId: string | null;
  /** Branch summaries: the navigation target, the leaf left, and where navigation landed. */
  readonly targetId: string | null;
  readonly oldLeafId: string | null;
  readonly newLeafId: string | null;
  /** A continuation requested after this compaction. */
  readonly continuation: string | null;
  /** Who started the attempt (an API key's name, `strata-engine` for a saga) and for whom. */
  readonly actor: string | null;
  readonly onBehalfOf: string | null;
  /** What the request asked the summary to focus on. */
  readonly customInstructions: string | null;
  /** Compactions: asked with `force: true` (it keeps less when the keep budget would keep all). */
  readonly force: boolean;
  /** Every summary request, in order (the latest 64); `summaryCallsOmitted` counts the others. */
  readonly summaryCalls: readonly SummaryCall[];
  readonly summaryCallsOmitted: number;
  readonly position: string;
  readonly startPosition: string;
  readonly [field: string]: unknown;
}

export interface AttemptList {
  readonly items: readonly AuditAttempt[];
  readonly total: number;
  readonly nextCursor: string | null;
}
