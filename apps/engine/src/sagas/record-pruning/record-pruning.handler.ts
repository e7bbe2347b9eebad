// Adapter: RecordPruning → the session decider through the generic command handler.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionStreams } from '../../session-streams/session-streams.service';
import { writeContextOf } from '../../shared/command-context';
import { RecordPruningCommand, type RecordPruningResult } from './record-pruning.command';

@CommandHandler(RecordPruningCommand)
export class RecordPruningHandler implements ICommandHandler<RecordPruningCommand> {
  constructor(private readonly streams: SessionStreams) {}

  async execute({
    sessionId,
    pruning,
    options,
    context,
  }: RecordPruningCommand): Promise<RecordPruningResult> {
    const written = await this.streams.execute(
      sessionId,
      { type: 'RecordPruning', data: pruning },
      {
        ...(options.idSeed !== undefined ? { idSeed: options.idSeed } : {}),
        ...(options.causationEventId !== undefined
          ? { metadata: { causationId: options.causationEventId } }
          : {}),
        ...writeContextOf(context),
      },
    );
    return { recorded: written.events.length > 0 };
  }
}
