// The vocabulary of the session sagas (DESIGN.md decision 5, STYLE.md habit 9): a saga is a pure
// function of one stored session event and a view of its session to the commands it asks for.
// The saga processor builds the trigger and the view, runs the function and executes the
// commands through the CommandBus. Nothing here touches Nest, the store or the clock.
import type {
  CompactionSettings,
  CompactionTrigger,
  ContinuationReason,
  PrunedResult,
  PrunedToolOutput,
  PruningSettings,
  SessionEntry,
  SessionEvent,
  SessionEventType,
  TokenCounter,
  UserMessage,
} from '@strata/session';

/** The stored event a saga reacts to. */
export interface SagaTrigger {
  readonly sessionId: string;
  /** The tenant recorded on the event: what the saga writes is written for it. */
  readonly tenant: string;
  /** The store's id of the event; everything a saga writes takes its ids from it. */
  readonly eventId: string;
  readonly position: bigint;
  /** When the store recorded the event (epoch ms): the time stamped on what the saga writes. */
  readonly recordedAt: number;
  readonly event: SessionEvent;
}

/** The settings in force for the session (the engine's, with the session's override merged in). */
export interface SagaSettings {
  readonly compaction: Pick<CompactionSettings, 'enabled' | 'reserveTokens' | 'autoContinue'>;
  readonly pruning: PruningSettings;
}

/**
 * What the sagas see of the session when they handle a trigger: its state now (the runner may
 * handle an event late, or again after a restart), so a saga can tell that a compaction has
 * since made a measurement stale or that the branch was left.
 */
export interface SagaSessionView {
  readonly settings: SagaSettings;
  /** Root → current leaf. */
  readonly path: readonly SessionEntry[];
  /** Tool outputs pruned so far (entry id → record). */
  readonly prunedResults: ReadonlyMap<string, PrunedResult>;
  /** "provider/modelId" the session uses now (newest answer or default model change on the path). */
  readonly currentModel: string | undefined;
  /** The context window of `currentModel`. */
  readonly contextWindow: number;
  /** Which automatic trigger wrote each compaction entry (entry id → trigger). */
  readonly compactionTriggers: ReadonlyMap<string, CompactionTrigger>;
  /**
   * Tokens saved by the pruning recorded after the check at an entry (entry id → tokens);
   * undefined when none was. The trigger's own entry has one when the trigger is redelivered.
   */
  readonly pruningSavedAfter: (entryId: string) => number | undefined;
  readonly tokenCounter: TokenCounter;
}

type SagaCommandOf<Type extends string, Data> = {
  readonly type: Type;
  readonly data: Readonly<{ sessionId: string; causationEventId: string } & Data>;
};

/** Record a pruning decision; `idSeed` makes a repeated command write nothing. */
export type PruneToolOutputsCommand = SagaCommandOf<
  'PruneToolOutputs',
  {
    prunedAt: number;
    results: readonly PrunedToolOutput[];
    tokensSaved: number;
    /** The entry whose check decided the pruning; the session records what it saved against it. */
    answerEntryId: string;
    idSeed: string;
  }
>;

/**
 * Run an automatic compaction attempt named by `attemptId`, at the leaf the check point saw
 * (`atLeafId`: when the session has moved on by then, the attempt ends skipped as stale).
 */
export type AutoCompactCommand = SagaCommandOf<
  'AutoCompact',
  { trigger: Exclude<CompactionTrigger, 'manual'>; attemptId: string; atLeafId: string | null }
>;

/** Ask the agent to continue after a completed automatic compaction. */
export type ContinueAfterCompactionCommand = SagaCommandOf<
  'ContinueAfterCompaction',
  { reason: ContinuationReason; causationAttemptId: string; message?: UserMessage; idSeed: string }
>;

export type SagaCommand = PruneToolOutputsCommand | AutoCompactCommand | ContinueAfterCompactionCommand;

/** One saga: which stored events it reads, and its pure reaction to one of them. */
export interface SessionSaga {
  readonly name: string;
  /** For the subscription filter. */
  readonly eventTypes: readonly SessionEventType[];
  /** Whether the event concerns it at all (checked before a view is loaded). */
  readonly handles: (event: SessionEvent) => boolean;
  readonly react: (trigger: SagaTrigger, view: SagaSessionView) => readonly SagaCommand[];
}
