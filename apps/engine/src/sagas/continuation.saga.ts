// Continuation after an automatic compaction (reference §9, pure): a completed threshold
// compaction asks the agent to go on with the synthetic "Continue if you have next steps."
// prompt when `compaction.autoContinue` is on; a completed overflow compaction asks for the
// failed request to be retried. Manual compactions never continue on their own. Only while the
// session rests at the end of a turn (issue 13): never while a tool call awaits its result or the
// loop awaits the model's next answer, and not after a compaction made before a prompt (the
// user's message is what the agent answers next).
import { autoContinueMessage, restsAtTurnEnd, type SessionEvent } from '@strata/session';
import { continuationSeedOf } from './saga-ids';
import type { SagaCommand, SagaSessionView, SagaTrigger, SessionSaga } from './saga-messages';

function completesCompaction(event: SessionEvent): boolean {
  return event.type === 'CompactionCompleted';
}

/** The commands after one stored event (see the module header). */
export function continuationCommands(trigger: SagaTrigger, view: SagaSessionView): readonly SagaCommand[] {
  const { event } = trigger;
  const { compaction } = view.settings;
  if (event.type !== 'CompactionCompleted' || !compaction.enabled) return [];
  if (!restsAtTurnEnd(view.path)) return [];
  const base = {
    sessionId: trigger.sessionId,
    causationEventId: trigger.eventId,
    causationAttemptId: event.data.attemptId,
    idSeed: continuationSeedOf(trigger.eventId),
  };
  switch (event.data.trigger) {
    case 'threshold':
      if (!compaction.autoContinue) return [];
      return [
        {
          type: 'ContinueAfterCompaction',
          data: { ...base, reason: 'auto_continue', message: autoContinueMessage(trigger.recordedAt) },
        },
      ];
    case 'overflow':
      return [{ type: 'ContinueAfterCompaction', data: { ...base, reason: 'overflow_retry' } }];
    case 'manual':
      return [];
    default: {
      const unhandled: never = event.data.trigger;
      throw new Error(`unhandled compaction trigger ${String(unhandled)}`);
    }
  }
}

export const continuationSaga: SessionSaga = {
  name: 'continuation',
  eventTypes: ['CompactionCompleted'],
  handles: completesCompaction,
  react: continuationCommands,
};
