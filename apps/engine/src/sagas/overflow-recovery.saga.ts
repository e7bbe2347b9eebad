// Overflow recovery (reference §9, pure): when an assistant answer failed because the context
// overflowed the current model's window, prune, then compact so the request can be retried
// (the continuation saga asks for the retry once the compaction completes). Only a failed answer
// (`stopReason: "error"`) is recovered (issue 25): pi also compacts after an answer that
// succeeded with usage above the window (a silent overflow), as an overflow that announces a
// retry it then does not make; here such an answer is left to the threshold check, which
// compacts it as a threshold compaction, and no retry is announced or asked for. Not when a
// compaction newer than the answer is on the path — the LATEST one (defect 7: upstream looked at
// the first) — and at most once per turn: an overflow compaction already made since the turn's
// opening message means the retried request overflowed again, and a second recovery would loop.
// Like the threshold check (issue 13), only an answer that ends its turn counts: a silent
// overflow reported by an answer with tool calls is in the middle of the agent's loop, and a
// compaction there would be attached between the call and its result; the turn's last answer
// decides. An error ends the loop, so a failed answer always counts.
import { endsTurn, findTurnStartIndex } from '@strata/session';
import { appendsAssistantMessage, isFailedOverflow, liveAssistantTurn, pruningStep } from './assistant-turns';
import { autoCompactionAttemptId } from './saga-ids';
import type { SagaCommand, SagaSessionView, SagaTrigger, SessionSaga } from './saga-messages';

/** Whether an overflow compaction lies between the opening of the answer's turn and the answer. */
export function recoveredInThisTurn(view: SagaSessionView, answerIndex: number): boolean {
  const turnStart = Math.max(0, findTurnStartIndex(view.path, answerIndex, 0));
  return view.path
    .slice(turnStart, answerIndex)
    .some((entry) => entry.type === 'compaction' && view.compactionTriggers.get(entry.id) === 'overflow');
}

/** The commands after one stored event (see the module header). */
export function overflowRecoveryCommands(
  trigger: SagaTrigger,
  view: SagaSessionView,
): readonly SagaCommand[] {
  if (!view.settings.compaction.enabled) return [];
  const turn = liveAssistantTurn(trigger, view);
  if (turn === undefined || !endsTurn(turn.message) || !isFailedOverflow(turn.message, view)) return [];
  if (recoveredInThisTurn(view, turn.pathIndex)) return [];
  return [
    ...pruningStep(trigger, view).commands,
    {
      type: 'AutoCompact',
      data: {
        sessionId: trigger.sessionId,
        causationEventId: trigger.eventId,
        trigger: 'overflow',
        attemptId: autoCompactionAttemptId(trigger.eventId, 'overflow'),
        atLeafId: view.path.at(-1)?.id ?? null,
      },
    },
  ];
}

export const overflowRecoverySaga: SessionSaga = {
  name: 'overflow-recovery',
  eventTypes: ['EntryAppended'],
  handles: appendsAssistantMessage,
  react: overflowRecoveryCommands,
};
