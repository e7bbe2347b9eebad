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
import type { AttemptError, CompactionTrigger, ContinuationReason, PrunedToolOutput } from './session-events';

type CommandOf<Type extends string, Data> = { readonly type: Type; readonly data: Readonly<Data> };

export type StartSessionCommand = CommandOf<'StartSession', { header: SessionHeader }>;

export type AppendEntriesCommand = CommandOf<
  'AppendEntries',
  {
    entries: readonly SessionEntry[];
    /** When given, the current leaf must equal it (optimistic check of the writer's view). */
    expectedLeafId?: string | null;
  }
>;

export type MoveLeafCommand = CommandOf<'MoveLeaf', { leafId: string | null }>;

export type SetLabelCommand = CommandOf<'SetLabel', { entry: LabelEntry }>;

export type RecordPruningCommand = CommandOf<
  'RecordPruning',
  { prunedAt: number; results: readonly PrunedToolOutput[]; tokensSaved: number }
>;

export type StartCompactionCommand = CommandOf<
  'StartCompaction',
  {
    attemptId: string;
    trigger: CompactionTrigger;
    preparedAtLeafId: string | null;
    firstKeptEntryId?: string;
    tokensBefore: number;
    model?: string;
    startedAt: number;
  }
>;

export type RecordCompactionCommand = CommandOf<
  'RecordCompaction',
  {
    attemptId: string;
    entry: CompactionEntry;
    model?: string;
    usage?: Usage;
    durationMs: number;
    estimatedTokensAfter: number;
  }
>;

export type SkipCompactionCommand = CommandOf<'SkipCompaction', { attemptId: string; reason: string }>;
export type CancelCompactionCommand = CommandOf<'CancelCompaction', { attemptId: string; reason: string }>;
export type FailCompactionCommand = CommandOf<'FailCompaction', { attemptId: string; error: AttemptError }>;

export type StartBranchSummaryCommand = CommandOf<
  'StartBranchSummary',
  { attemptId: string; targetId: string; oldLeafId: string | null; model?: string; startedAt: number }
>;

export type RecordBranchSummaryCommand = CommandOf<
  'RecordBranchSummary',
  {
    attemptId: string;
    /** Its parentId is where navigation lands; the leaf moves there first when it is elsewhere. */
    entry: BranchSummaryEntry;
    model?: string;
    usage?: Usage;
    durationMs: number;
  }
>;

export type SkipBranchSummaryCommand = CommandOf<'SkipBranchSummary', { attemptId: string; reason: string }>;
export type CancelBranchSummaryCommand = CommandOf<
  'CancelBranchSummary',
  { attemptId: string; reason: string }
>;
export type FailBranchSummaryCommand = CommandOf<
  'FailBranchSummary',
  { attemptId: string; error: AttemptError }
>;

export type RequestContinuationCommand = CommandOf<
  'RequestContinuation',
  { reason: ContinuationReason; causationAttemptId: string; message?: UserMessage }
>;

export type SessionCommand =
  | StartSessionCommand
  | AppendEntriesCommand
  | MoveLeafCommand
  | SetLabelCommand
  | RecordPruningCommand
  | StartCompactionCommand
  | RecordCompactionCommand
  | SkipCompactionCommand
  | CancelCompactionCommand
  | FailCompactionCommand
  | StartBranchSummaryCommand
  | RecordBranchSummaryCommand
  | SkipBranchSummaryCommand
  | CancelBranchSummaryCommand
  | FailBranchSummaryCommand
  | RequestContinuationCommand;

export type SessionCommandType = SessionCommand['type'];

/** The prompt sent after a threshold compaction when auto-continue is on (reference §9). */
export const AUTO_CONTINUE_PROMPT = 'Continue if you have next steps.';

/** The synthetic user message of an auto-continue request, stamped with the caller's clock. */
export function autoContinueMessage(timestamp: number): UserMessage {
  return { role: 'user', content: AUTO_CONTINUE_PROMPT, synthetic: true, timestamp };
}
