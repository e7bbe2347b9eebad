// Adapter: CompactSession → the compaction service.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { newAttemptId } from '../../attempts/attempt-ids';
import type { CompactionResult } from '../../compaction/compaction-result';
import { CompactionService } from '../../compaction/compaction.service';
import { CompactSessionCommand } from './compact-session.command';

@CommandHandler(CompactSessionCommand)
export class CompactSessionHandler implements ICommandHandler<CompactSessionCommand> {
  constructor(private readonly compaction: CompactionService) {}

  execute({ sessionId, options, context }: CompactSessionCommand): Promise<CompactionResult> {
    return this.compaction.compact({
      sessionId,
      attemptId: options.attemptId ?? newAttemptId(),
      trigger: options.trigger ?? 'manual',
      ...(options.customInstructions !== undefined ? { customInstructions: options.customInstructions } : {}),
      ...(options.force === true ? { force: true } : {}),
      context,
      ...(options.whenRunningElsewhere !== undefined
        ? { whenRunningElsewhere: options.whenRunningElsewhere }
        : {}),
      ...(options.atLeafId !== undefined ? { atLeafId: options.atLeafId } : {}),
    });
  }
}
