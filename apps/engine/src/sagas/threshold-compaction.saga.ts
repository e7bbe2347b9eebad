// Threshold compaction (reference §3.2 and §9, pure): after an assistant answer that neither
// failed nor was aborted, prune first, then compact when the measured context, less what the
// pruning saved, is above the window minus the reserve. Only the newest measurement counts: an
// answer made stale by a later compaction (defect 8), superseded by a newer answer, or without
// usage triggers nothing; an overflow is left to overflow recovery.
import { calculateContextTokens, findFreshAssistantUsage, isAboveThreshold } from '@strata/session';
import {
  appendsAssistantMessage,
  isRecoverableOverflow,
  liveAssistantTurn,
  pruningStep,
} from './assistant-turns';
import { autoCompactionAttemptId } from './saga-ids';
import type { SagaCommand, SagaSessionView, SagaTrigger, SessionSaga } from './saga-messages';

/** The commands after one stored event (see the module header). */
export function thresholdCompactionCommands(
  trigger: SagaTrigger,
  view: SagaSessionView,
): readonly SagaCommand[] {
  const { compaction } = view.settings;
  if (!compaction.enabled) return [];
  const turn = liveAssistantTurn(trigger, view);
  if (turn === undefined) return [];
  const { message } = turn;
  if (message.stopReason === 'error' || message.stopReason === 'aborted') return [];
  if (isRecoverableOverflow(message, view)) return [];
  if (findFreshAssistantUsage(view.path)?.entryIndex !== turn.pathIndex || message.usage === undefined) {
    return [];
  }
  const pruning = pruningStep(trigger, view);
  const contextTokens = Math.max(0, calculateContextTokens(message.usage) - pruning.tokensSaved);
  if (!isAboveThreshold(contextTokens, view.contextWindow, compaction.reserveTokens)) {
    return pruning.commands;
  }
  return [
    ...pruning.commands,
    {
      type: 'AutoCompact',
      data: {
        sessionId: trigger.sessionId,
        causationEventId: trigger.eventId,
        trigger: 'threshold',
        attemptId: autoCompactionAttemptId(trigger.eventId, 'threshold'),
      },
    },
  ];
}

export const thresholdCompactionSaga: SessionSaga = {
  name: 'threshold-compaction',
  eventTypes: ['EntryAppended'],
  handles: appendsAssistantMessage,
  react: thresholdCompactionCommands,
};
