// Executes one saga step: each command the saga asked for, in order, through the CommandBus,
// each awaited; then reports the outcome to the delivery, which the runner awaits before it
// stores its checkpoint. Total: it never throws (a failure is reported, and the runner decides
// whether to deliver the event again).
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CompactSessionCommand } from '../sessions/compact-session/compact-session.command';
import type { SagaStepOutcome } from './saga-feed';
import type { SagaCommand } from './saga-messages';
import { RecordPruningCommand } from './record-pruning/record-pruning.command';
import { RequestContinuationCommand } from './request-continuation/request-continuation.command';
import { RunSagaStepCommand } from './run-saga-step.command';

type EngineCommand = CompactSessionCommand | RecordPruningCommand | RequestContinuationCommand;

/** The engine command that carries out a saga command. */
export function engineCommandOf(command: SagaCommand): EngineCommand {
  switch (command.type) {
    case 'PruneToolOutputs': {
      const { sessionId, causationEventId, idSeed, prunedAt, results, tokensSaved } = command.data;
      return new RecordPruningCommand(
        sessionId,
        { prunedAt, results, tokensSaved },
        { idSeed, causationEventId },
      );
    }
    case 'AutoCompact': {
      const { sessionId, trigger, attemptId } = command.data;
      return new CompactSessionCommand(sessionId, { trigger, attemptId });
    }
    case 'ContinueAfterCompaction': {
      const { sessionId, causationEventId, idSeed, reason, causationAttemptId, message } = command.data;
      return new RequestContinuationCommand(
        sessionId,
        { reason, causationAttemptId, ...(message !== undefined ? { message } : {}) },
        { idSeed, causationEventId },
      );
    }
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled saga command ${JSON.stringify(unhandled)}`);
    }
  }
}

@CommandHandler(RunSagaStepCommand)
export class RunSagaStepHandler implements ICommandHandler<RunSagaStepCommand> {
  constructor(private readonly commandBus: CommandBus) {}

  async execute({ saga, delivery, decision }: RunSagaStepCommand): Promise<SagaStepOutcome> {
    const outcome = await this.run(saga, decision);
    delivery.settle(outcome);
    return outcome;
  }

  private async run(saga: string, decision: RunSagaStepCommand['decision']): Promise<SagaStepOutcome> {
    if (decision.kind === 'failed') return { saga, status: 'failed', commands: [], error: decision.error };
    try {
      for (const command of decision.commands) await this.commandBus.execute(engineCommandOf(command));
      return { saga, status: 'completed', commands: decision.commands };
    } catch (error) {
      return { saga, status: 'failed', commands: decision.commands, error };
    }
  }
}
