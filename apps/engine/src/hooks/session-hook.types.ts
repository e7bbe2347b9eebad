// The hook contracts of reference §8 as provider interfaces (DESIGN.md decision 8). A hook
// provider implements any of the handlers below, each named exactly as the reference names the
// event. Handlers run in order; see session-hooks.service.ts for how results combine.
import type {
  AgentMessage,
  BranchSummaryEntry,
  CompactionEntry,
  CompactionReady,
  CompactionTrigger,
  FileLists,
  SessionEntry,
} from '@strata/session';

export type AutoCompactionReason = Exclude<CompactionTrigger, 'manual'>;

export interface SessionBeforeCompactEvent {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly trigger: CompactionTrigger;
  /** What the default compaction would summarise and keep. */
  readonly preparation: CompactionReady;
  /** The root→leaf path the preparation was made from. */
  readonly branchEntries: readonly SessionEntry[];
  readonly customInstructions?: string;
  /** Aborts with the attempt (AbortCompaction). */
  readonly signal: AbortSignal;
}

/** A compaction a hook supplies instead of the default (stored with `fromExtension: true`). */
export interface HookCompaction {
  readonly summary: string;
  readonly shortSummary?: string;
  /** Must be on the compacted path and not a tool result, else the default runs. */
  readonly firstKeptEntryId: string;
  readonly tokensBefore: number;
  readonly details?: FileLists;
  readonly preserveData?: Readonly<Record<string, unknown>>;
}

export interface SessionBeforeCompactResult {
  /** Ends the attempt as cancelled. */
  readonly cancel?: boolean;
  readonly compaction?: HookCompaction;
}

export interface SessionCompactingEvent {
  readonly sessionId: string;
  readonly attemptId: string;
  /** The messages to summarise followed by the turn-prefix messages. */
  readonly messages: readonly AgentMessage[];
}

export interface SessionCompactingResult {
  /** Bullets of the `<additional-context>` block (history, turn-prefix and short summaries). */
  readonly context?: readonly string[];
  /** Replaces the base instructions of the history summary. */
  readonly prompt?: string;
  /** Stored on the compaction entry. */
  readonly preserveData?: Readonly<Record<string, unknown>>;
}

export interface SessionCompactEvent {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly compactionEntry: CompactionEntry;
  readonly fromExtension: boolean;
}

export interface TreePreparation {
  readonly targetId: string;
  readonly oldLeafId: string | null;
  readonly commonAncestorId: string | null;
  /** The abandoned entries, oldest first. */
  readonly entriesToSummarize: readonly SessionEntry[];
  readonly userWantsSummary: boolean;
}

export interface SessionBeforeTreeEvent {
  readonly sessionId: string;
  readonly preparation: TreePreparation;
  readonly signal: AbortSignal;
}

export interface SessionBeforeTreeResult {
  /** Cancels the navigation: nothing is written. */
  readonly cancel?: boolean;
  /** Used only when a summary was asked for (stored with `fromExtension: true`). */
  readonly summary?: { readonly summary: string; readonly details?: FileLists };
}

export interface SessionTreeEvent {
  readonly sessionId: string;
  /** null = before the first entry. */
  readonly newLeafId: string | null;
  readonly oldLeafId: string | null;
  readonly summaryEntry?: BranchSummaryEntry;
  readonly fromExtension?: boolean;
}

export interface AutoCompactionStartEvent {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly reason: AutoCompactionReason;
}

export interface AutoCompactionEndEvent {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly reason: AutoCompactionReason;
  /** The stored compaction, when the attempt completed. */
  readonly result?: CompactionEntry;
  readonly aborted: boolean;
  /** True after an overflow compaction: the failed request is retried. */
  readonly willRetry: boolean;
  readonly errorMessage?: string;
  /** Why nothing was compacted (an attempt ended skipped); not a failure. */
  readonly skippedReason?: string;
}

type HookAnswer<Result> = Result | undefined | void | Promise<Result | undefined | void>;

/** One hook provider. Every handler is optional; return values are ignored where noted. */
export interface SessionHookHandlers {
  session_before_compact?(event: SessionBeforeCompactEvent): HookAnswer<SessionBeforeCompactResult>;
  'session.compacting'?(event: SessionCompactingEvent): HookAnswer<SessionCompactingResult>;
  /** Result ignored. */
  session_compact?(event: SessionCompactEvent): HookAnswer<unknown>;
  session_before_tree?(event: SessionBeforeTreeEvent): HookAnswer<SessionBeforeTreeResult>;
  /** Result ignored. */
  session_tree?(event: SessionTreeEvent): HookAnswer<unknown>;
  /** Result ignored. Fires for threshold and overflow attempts only. */
  auto_compaction_start?(event: AutoCompactionStartEvent): HookAnswer<unknown>;
  /** Result ignored. Fires for threshold and overflow attempts only. */
  auto_compaction_end?(event: AutoCompactionEndEvent): HookAnswer<unknown>;
}

export type SessionHookName = keyof SessionHookHandlers;
export type NotificationHookName =
  'session_compact' | 'session_tree' | 'auto_compaction_start' | 'auto_compaction_end';
export type NotificationEvent<Name extends NotificationHookName> = Parameters<
  NonNullable<SessionHookHandlers[Name]>
>[0];
