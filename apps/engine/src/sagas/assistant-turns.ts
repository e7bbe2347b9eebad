// What the compaction sagas share about an appended entry (reference §9, pure): where it sits on
// the session's current path, whether a later compaction has made an answer stale (defects 7
// and 8 of §11.1: the LATEST compaction counts), whether it overflowed the current model's
// context, the check points, and the pruning that runs at each check (§7).
//
// The check points (issue 13) are the moments pi checks the threshold: when an answer ends the
// turn (`agent_end`: it asks for no tool, or failed, or was aborted) and before the next prompt
// (a user message). An answer with tool calls (`stopReason: "toolUse"`) and its tool results are
// the middle of the agent's loop: nothing is checked, pruned or compacted there, so no compaction
// is ever attached between a call and its result. A check point counts only while it is the
// newest entry of the conversation on the current path (metadata may follow it): once the host
// has appended more, the newer entry's own check point decides.
import { isContextOverflow } from '@strata/summarizer';
import {
  endsTurn,
  findFreshAssistantUsage,
  isLatestInConversation,
  latestCompactionIndex,
  pruneToolOutputs,
  type AssistantMessage,
  type FreshUsage,
  type SessionEntry,
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

/** Whether the event appends an assistant or a user message: the entries that can be check points. */
export function appendsCheckPointCandidate(event: SessionEvent): boolean {
  if (event.type !== 'EntryAppended' || event.data.entry.type !== 'message') return false;
  const { role } = event.data.entry.message;
  return role === 'assistant' || role === 'user';
}

/** A moment at which the threshold is checked (see the module header). */
export interface CheckPoint {
  /** `turn_end`: an answer that ends its turn; `prompt`: a user message, before its answer. */
  readonly kind: 'turn_end' | 'prompt';
  /** The entry the trigger appended, and its index on `view.path`. */
  readonly entryId: string;
  readonly pathIndex: number;
  /** The answer whose usage measures the context: the turn's own, or the newest before the prompt. */
  readonly measured: FreshUsage;
}

/**
 * The index of entry `entryId` on `path`, or −1. Looked for from the leaf: the entry a saga
 * reacts to was just appended, so it is nearly always at the end (an id is on a path once).
 */
function pathIndexOf(path: readonly SessionEntry[], entryId: string): number {
  for (let index = path.length - 1; index >= 0; index -= 1) {
    if (path[index]?.id === entryId) return index;
  }
  return -1;
}

/**
 * The check point the trigger appended, when it is one and still counts: an answer that ends
 * its turn and is the newest usage on the path, or a user message after an answer with usage
 * newer than the latest compaction; in both cases the newest entry of the conversation on the
 * current path. Undefined otherwise (a tool loop, a branch left behind, an entry superseded).
 */
export function checkPointOf(trigger: SagaTrigger, view: SagaSessionView): CheckPoint | undefined {
  const { event } = trigger;
  if (event.type !== 'EntryAppended') return undefined;
  const { entry } = event.data;
  if (entry.type !== 'message') return undefined;
  const pathIndex = pathIndexOf(view.path, entry.id);
  if (pathIndex < 0 || !isLatestInConversation(view.path, pathIndex)) return undefined;
  if (entry.message.role === 'assistant') {
    if (!endsTurn(entry.message)) return undefined;
    const measured = findFreshAssistantUsage(view.path);
    if (measured?.entryIndex !== pathIndex) return undefined;
    return { kind: 'turn_end', entryId: entry.id, pathIndex, measured };
  }
  if (entry.message.role !== 'user') return undefined;
  const measured = findFreshAssistantUsage(view.path, pathIndex);
  if (measured === undefined) return undefined;
  return { kind: 'prompt', entryId: entry.id, pathIndex, measured };
}

/**
 * Tokens saved by the pruning recorded at the checks between the measured answer and the check
 * point (the answer's own check included, the check point's own not): the measured usage
 * predates them, so they come off it.
 */
export function pruningSavedSinceMeasured(point: CheckPoint, view: SagaSessionView): number {
  let saved = 0;
  for (let index = point.measured.entryIndex; index < point.pathIndex; index += 1) {
    const entry = view.path[index];
    if (entry !== undefined) saved += view.pruningSavedAfter(entry.id) ?? 0;
  }
  return saved;
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
  const pathIndex = pathIndexOf(view.path, entry.id);
  if (pathIndex < 0 || pathIndex < latestCompactionIndex(view.path)) return undefined;
  return { entryId: entry.id, message: entry.message, pathIndex };
}

/** Whether the answer came from the model the session uses now (same provider and id). */
export function isFromCurrentModel(message: AssistantMessage, view: SagaSessionView): boolean {
  return view.currentModel === `${message.provider}/${message.model}`;
}

/**
 * Whether the answer failed because the context overflowed, so that the request is worth retrying
 * once the context is compacted (issue 25): it stopped with `error`, comes from the current
 * model, and the overflow is detected as in reference §9 (an overflow error, or input plus cache
 * reads above the window). An answer that succeeded with usage above the window is not one: it
 * is measured against the threshold like any other answer, and nothing asks the model again.
 */
export function isFailedOverflow(message: AssistantMessage, view: SagaSessionView): boolean {
  return (
    message.stopReason === 'error' &&
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
 * The pruning that precedes an automatic compaction, decided at a check. A redelivered trigger
 * whose pruning is already recorded reuses its savings instead of deciding again, so the
 * threshold decision comes out the same the second time.
 */
export function pruningStep(trigger: SagaTrigger, view: SagaSessionView): PruningStep {
  const { event } = trigger;
  if (event.type !== 'EntryAppended') return { commands: [], tokensSaved: 0 };
  const recorded = view.pruningSavedAfter(event.data.entry.id);
  if (recorded !== undefined) return { commands: [], tokensSaved: recorded };
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
