// The engine command that carries out each saga command (STYLE.md habit 9: sagas are pure and
// ask; the engine's command handlers do). Each runs for the tenant of the triggering event.
import { CompactSessionCommand } from '../sessions/compact-session/compact-session.command';
import { RecordPruningCommand } from './record-pruning/record-pruning.command';
import { RequestContinuationCommand } from './request-continuation/request-continuation.command';
import type { SagaCommand } from './saga-messages';

export type EngineCommand = CompactSessionCommand | RecordPruningCommand | RequestContinuationCommand;

/** The engine command for `command`, run for `tenant` (the tenant of the triggering event). */
export function engineCommandOf(command: SagaCommand, tenant: string): EngineCommand {
  switch (command.type) {
    case 'PruneToolOutputs': {
      const { sessionId, causationEventId, idSeed, prunedAt, results, tokensSaved, answerEntryId } =
        command.data;
      return new RecordPruningCommand(
        sessionId,
        { prunedAt, results, tokensSaved, answerEntryId },
        { idSeed, causationEventId },
        { tenant },
      );
    }
    case 'AutoCompact': {
      const { sessionId, trigger, attemptId, atLeafId } = command.data;
      // Several engines react to the same answer; the one that starts the attempt summarises.
      return new CompactSessionCommand(
        sessionId,
        { trigger, attemptId, whenRunningElsewhere: 'leave', atLeafId },
        { tenant },
      );
    }
    case 'ContinueAfterCompaction': {
      const { sessionId, causationEventId, idSeed, reason, causationAttemptId, message } = command.data;
      return new RequestContinuationCommand(
        sessionId,
        { reason, causationAttemptId, ...(message !== undefined ? { message } : {}) },
        { idSeed, causationEventId },
        { tenant },
      );
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled saga command ${JSON.stringify(unhandled)}`);
    }
  }
}
