// What the compaction sagas share about an appended assistant answer (reference §9, pure): where
// it sits on the session's current path, whether a later compaction has made it stale
// (defects 7 and 8 of §11.1: the LATEST compaction counts), whether it overflowed the current
// model's context, and the pruning that runs before any automatic compaction (§7).
import { isContextOverflow } from '@strata/summarizer';
import {
  latestCompactionIndex,
  pruneToolOutputs,
  type AssistantMessage,
  type SessionEvent,
} from '@strata/session';
import type { SagaCommand, SagaSessionView, SagaTrigger } from './saga-messages';
import { pruningSeedOf } from './saga-ids';

/** An assistant answer that is on the current path and newer than the latest compaction there. */
export interface LiveAssistantTurn {
  readonly entryId: string;
  readonly message: AssistantMessage;
  /** Its index on `view.path`. */
  readonly pathIndex: number;
}

/** Whether the event appends an assistant message. */
export function appendsAssistantMessage(event: SessionEvent): boolean {
  return (
    event.type === 'EntryAppended' &&
    event.data.entry.type === 'message' &&
    event.data.entry.message.role === 'assistant'
  );
}

/**
 * The assistant answer the trigger appended, when it still counts: on the current path (not a
 * branch the user has left) and after the latest compaction on it (its usage measured the
 * context that compaction replaced, so it is stale). Undefined otherwise.
 */
export function liveAssistantTurn(
  trigger: SagaTrigger,
  view: SagaSessionView,
): LiveAssistantTurn | undefined {
  const { event } = trigger;
  if (event.type !== 'EntryAppended') return undefined;
  const { entry } = event.data;
  if (entry.type !== 'message' || entry.message.role !== 'assistant') return undefined;
  const pathIndex = view.path.findIndex((candidate) => candidate.id === entry.id);
  if (pathIndex < 0 || pathIndex < latestCompactionIndex(view.path)) return undefined;
  return { entryId: entry.id, message: entry.message, pathIndex };
}

/** Whether the answer came from the model the session uses now (same provider and id). */
export function isFromCurrentModel(message: AssistantMessage, view: SagaSessionView): boolean {
  return view.currentModel === `${message.provider}/${message.model}`;
}

/**
 * Whether the answer is a context overflow that overflow recovery handles: not aborted, from
 * the current model, and detected as in reference §9 (an overflow error, or input plus cache
 * reads above the window whatever the stop reason).
 */
export function isRecoverableOverflow(message: AssistantMessage, view: SagaSessionView): boolean {
  return (
    message.stopReason !== 'aborted' &&
    isFromCurrentModel(message, view) &&
    isContextOverflow(message, view.contextWindow)
  );
}

export interface PruningStep {
  /** A `PruneToolOutputs` command, or nothing. */
  readonly commands: readonly SagaCommand[];
  /** Tokens the pruning of this trigger saves (recorded earlier, or decided now). */
  readonly tokensSaved: number;
}

/**
 * The pruning that precedes an automatic compaction. A redelivered trigger whose pruning is
 * already recorded reuses its savings instead of deciding again, so the threshold decision
 * comes out the same the second time.
 */
export function pruningStep(trigger: SagaTrigger, view: SagaSessionView): PruningStep {
  const { event } = trigger;
  if (event.type !== 'EntryAppended') return { commands: [], tokensSaved: 0 };
  if (view.recordedPruningSavings !== undefined) {
    return { commands: [], tokensSaved: view.recordedPruningSavings };
  }
  const decision = pruneToolOutputs(view.path, view.settings.pruning, view.tokenCounter, view.prunedResults);
  if (decision.kind === 'none') return { commands: [], tokensSaved: 0 };
  return {
    commands: [
      {
        type: 'PruneToolOutputs',
        data: {
          sessionId: trigger.sessionId,
          causationEventId: trigger.eventId,
          prunedAt: trigger.recordedAt,
          results: decision.results.map(({ entryId, tokens }) => ({ entryId, tokens })),
          tokensSaved: decision.tokensSaved,
          answerEntryId: event.data.entry.id,
          idSeed: pruningSeedOf(trigger.eventId),
        },
      },
    ],
    tokensSaved: decision.tokensSaved,
  };
}
