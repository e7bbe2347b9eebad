// Adapter: StartSession → the session decider's StartSession.
import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CURRENT_SESSION_VERSION, type SessionHeader } from '@strata/session';
import { CLOCK } from '../../shared/injection-tokens';
import { isoTimestamp, type Clock } from '../../shared/clock';
import { SessionStreams } from '../session-streams.service';
import { StartSessionCommand, type StartSessionResult } from './start-session.command';

@CommandHandler(StartSessionCommand)
export class StartSessionHandler implements ICommandHandler<StartSessionCommand> {
  constructor(
    private readonly streams: SessionStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ options }: StartSessionCommand): Promise<StartSessionResult> {
    const sessionId = options.sessionId ?? randomUUID();
    const header: SessionHeader = {
      type: 'session',
      version: CURRENT_SESSION_VERSION,
      id: sessionId,
      timestamp: isoTimestamp(this.clock),
      cwd: options.cwd,
      ...(options.title !== undefined ? { title: options.title } : {}),
      ...(options.parentSession !== undefined ? { parentSession: options.parentSession } : {}),
    };
    const written = await this.streams.execute(
      sessionId,
      { type: 'StartSession', data: { header } },
      { idSeed: `${sessionId}/start-session` },
    );
    const stored = written.state.status === 'active' ? written.state.header : header;
    return { sessionId, header: stored, revision: written.revision, alreadyStarted: written.alreadyHandled };
  }
}
