// The commands the session decider accepts: imperative, readonly `{ type, data }`. Entries
// arrive complete (id, parentId, timestamp): the shell assigns ids and reads the clock, the
// decider only checks them against the session's invariants.
import type {
  BranchSummaryEntry,
  CompactionEntry,
  LabelEntry,
  SessionEntry,
  SessionHeader,
} from '../entries/entries';
import type { Usage, UserMessage } from '../entries/messages';
import type {
  AttemptError,
  CompactionTrigger,
  ContinuationReason,
  PrunedToolOutput,
  SummaryCall,
  SummaryDeclinedReason,
} from './session-events';

type CommandOf<Type extends string, Data> = { readonly type: Type; readonly data: Readonly<Data> };

export type StartSession = CommandOf<'StartSession', { header: SessionHeader }>;

export type AppendEntries = CommandOf<
  'AppendEntries',
  {
    entries: readonly SessionEntry[];
    /** When given, the current leaf must equal it (optimistic check of the writer's view). */
    expectedLeafId?: string | null;
    /**
     * A live write: each tool result must answer a call pending on the path at its parent
     * (tool-result-pairing.ts). Imports leave it out and keep what their file holds.
     */
    pairToolResults?: true;
  }
>;

export type MoveLeaf = CommandOf<
  'MoveLeaf',
  {
    leafId: string | null;
    /** A navigation that asked for a branch summary and gets none: why (recorded on the move). */
    summaryDeclined?: SummaryDeclinedReason;
    /** The instructions given for that summary (only with `summaryDeclined`). */
    customInstructions?: string;
  }
>;

export type SetLabel = CommandOf<'SetLabel', { entry: LabelEntry }>;

export type RecordPruning = CommandOf<
  'RecordPruning',
  {
    prunedAt: number;
    results: readonly PrunedToolOutput[];
    tokensSaved: number;
    /** The assistant answer whose turn the pruning comes before (automatic compaction). */
    answerEntryId?: string;
  }
>;

export type StartCompaction = CommandOf<
  'StartCompaction',
  {
    attemptId: string;
    trigger: CompactionTrigger;
    preparedAtLeafId: string | null;
    firstKeptEntryId?: string;
    tokensBefore: number;
    model?: string;
    startedAt: number;
    /** What the request asked the summary to focus on (at most MAX_CUSTOM_INSTRUCTIONS_LENGTH). */
    customInstructions?: string;
    force?: true;
  }
>;

/** The summary calls an attempt made (at most MAX_SUMMARY_CALLS listed, the latest), and how many more. */
export interface SummaryCallsRecord {
  summaryCalls?: readonly SummaryCall[];
  summaryCallsOmitted?: number;
}

export type RecordCompaction = CommandOf<
  'RecordCompaction',
  {
    attemptId: string;
    entry: CompactionEntry;
    model?: string;
    usage?: Usage;
    durationMs: number;
    estimatedTokensAfter: number;
  } & SummaryCallsRecord
>;

/**
 * What the caller knows when an attempt ends without compacting. The trigger and the tokens
 * before come from the attempt's start; the model recorded at start stands unless one is given.
 */
interface CompactionEnding extends SummaryCallsRecord {
  /** Measured by the caller's clock since the attempt started. */
  durationMs: number;
  model?: string;
  /** What the summariser spent before the attempt ended, when it was called. */
  usage?: Usage;
  /** The context as it stays; the attempt's tokens before when not given. */
  estimatedTokensAfter?: number;
}

export type SkipCompaction = CommandOf<
  'SkipCompaction',
  { attemptId: string; reason: string } & CompactionEnding
>;
export type CancelCompaction = CommandOf<
  'CancelCompaction',
  { attemptId: string; reason: string } & CompactionEnding
>;
export type FailCompaction = CommandOf<
  'FailCompaction',
  { attemptId: string; error: AttemptError } & CompactionEnding
>;

export type StartBranchSummary = CommandOf<
  'StartBranchSummary',
  {
    attemptId: string;
    targetId: string;
    oldLeafId: string | null;
    model?: string;
    startedAt: number;
    /** The navigation's instructions for the summary (at most MAX_CUSTOM_INSTRUCTIONS_LENGTH). */
    customInstructions?: string;
  }
>;

export type RecordBranchSummary = CommandOf<
  'RecordBranchSummary',
  {
    attemptId: string;
    /** Its parentId is where navigation lands; the leaf moves there first when it is elsewhere. */
    entry: BranchSummaryEntry;
    model?: string;
    usage?: Usage;
    durationMs: number;
  } & SummaryCallsRecord
>;

/**
 * What the caller knows when a branch summary ends without being attached. The navigation
 * (target, old leaf) comes from the attempt's start, and so does the model unless one is given.
 */
interface BranchSummaryEnding extends SummaryCallsRecord {
  /** Measured by the caller's clock since the attempt started. */
  durationMs: number;
  model?: string;
  /** What the summariser spent before the attempt ended, when it was called. */
  usage?: Usage;
}

export type SkipBranchSummary = CommandOf<
  'SkipBranchSummary',
  { attemptId: string; reason: string } & BranchSummaryEnding
>;
export type CancelBranchSummary = CommandOf<
  'CancelBranchSummary',
  { attemptId: string; reason: string } & BranchSummaryEnding
>;
export type FailBranchSummary = CommandOf<
  'FailBranchSummary',
  { attemptId: string; error: AttemptError } & BranchSummaryEnding
>;

export type RequestContinuation = CommandOf<
  'RequestContinuation',
  { reason: ContinuationReason; causationAttemptId: string; message?: UserMessage }
>;

export type SessionCommand =
  | StartSession
  | AppendEntries
  | MoveLeaf
  | SetLabel
  | RecordPruning
  | StartCompaction
  | RecordCompaction
  | SkipCompaction
  | CancelCompaction
  | FailCompaction
  | StartBranchSummary
  | RecordBranchSummary
  | SkipBranchSummary
  | CancelBranchSummary
  | FailBranchSummary
  | RequestContinuation
  | TakeLease
  | ReleaseLease
  | CheckLease;

/**
 * Takes the session's writer lease for `holder` until `now + ttlMs`, or renews it when `token`
 * is the lease in force. A new lease's token is `<sequence>.<nonce>` (the shell draws the nonce).
 */
export type TakeLease = CommandOf<
  'TakeLease',
  { holder?: string; ttlMs: number; now: number; nonce: string; token?: string }
>;

/** Releases the lease whose token this is (nothing when it was released already). */
export type ReleaseLease = CommandOf<'ReleaseLease', { token: string; now: number }>;

/**
 * Records nothing: refuses a write unless it bears the token of the lease in force, or no lease
 * is in force and it bears no token. Decided before the write's own command, in the same batch.
 */
export type CheckLease = CommandOf<'CheckLease', { leaseToken?: string; now: number }>;

export type SessionCommandType = SessionCommand['type'];

/** The prompt sent after a threshold compaction when auto-continue is on (reference §9). */
export const AUTO_CONTINUE_PROMPT = 'Continue if you have next steps.';

/** The synthetic user message of an auto-continue request, stamped with the caller's clock. */
export function autoContinueMessage(timestamp: number): UserMessage {
  return { role: 'user', content: AUTO_CONTINUE_PROMPT, synthetic: true, timestamp };
}
