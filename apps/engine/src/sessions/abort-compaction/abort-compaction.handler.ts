// Adapter: AbortCompaction → the running attempts of this process.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { RunningAttempts } from '../../attempts/running-attempts.service';
import { AbortCompactionCommand, type AbortCompactionResult } from './abort-compaction.command';

@CommandHandler(AbortCompactionCommand)
export class AbortCompactionHandler implements ICommandHandler<AbortCompactionCommand> {
  constructor(private readonly attempts: RunningAttempts) {}

  execute({ sessionId, options }: AbortCompactionCommand): Promise<AbortCompactionResult> {
    const abortedAttemptIds = this.attempts.abort(sessionId, {
      ...(options.attemptId !== undefined ? { attemptId: options.attemptId } : {}),
      ...(options.kind !== undefined ? { kind: options.kind } : {}),
    });
    return Promise.resolve({ abortedAttemptIds });
  }
}
