// Adapter: RequestContinuation → the session decider through the generic command handler.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionStreams } from '../../session-streams/session-streams.service';
import { writeContextOf } from '../../shared/command-context';
import { RequestContinuationCommand, type RequestContinuationResult } from './request-continuation.command';

@CommandHandler(RequestContinuationCommand)
export class RequestContinuationHandler implements ICommandHandler<RequestContinuationCommand> {
  constructor(private readonly streams: SessionStreams) {}

  async execute({
    sessionId,
    request,
    options,
    context,
  }: RequestContinuationCommand): Promise<RequestContinuationResult> {
    const written = await this.streams.execute(
      sessionId,
      { type: 'RequestContinuation', data: request },
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
