// Adapter: StartSession → the session decider's StartSession. The event id derives from the
// session id, so starting a chosen id again writes nothing: it answers the first outcome (the
// header and revision then) when the working directory, title and parent session are the same,
// and is refused with `IdempotencyMismatchError` when they are not.
import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { sessionIdSeed, type EarlierHandling } from '@strata/event-store';
import { CURRENT_SESSION_VERSION, type SessionHeader } from '@strata/session';
import { CLOCK } from '../../shared/injection-tokens';
import { isoTimestamp, type Clock } from '../../shared/clock';
import { IdempotencyMismatchError, requestDigestOf, requireSameRequest } from '../../shared/idempotency';
import { SessionStreams } from '../../session-streams/session-streams.service';
import { writeContextOf } from '../../shared/command-context';
import { StartSessionCommand, type StartSessionResult } from './start-session.command';

/** What a chosen session id stands for: the header fields the caller chose (not its timestamp). */
function startDigestOf(fields: Pick<SessionHeader, 'cwd' | 'title' | 'parentSession'>): string {
  return requestDigestOf({
    cwd: fields.cwd,
    title: fields.title ?? null,
    parentSession: fields.parentSession ?? null,
  });
}

@CommandHandler(StartSessionCommand)
export class StartSessionHandler implements ICommandHandler<StartSessionCommand> {
  constructor(
    private readonly streams: SessionStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ options, context }: StartSessionCommand): Promise<StartSessionResult> {
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
      {
        idSeed: sessionIdSeed(sessionId, 'start-session'),
        formerIdSeeds: [`${sessionId}/start-session`],
        requestDigest: startDigestOf(header),
        ...writeContextOf(context),
      },
    );
    if (written.earlier !== undefined) return this.firstOutcome(sessionId, header, written.earlier);
    return { sessionId, header, revision: written.revision, alreadyStarted: false };
  }

  private async firstOutcome(
    sessionId: string,
    requested: SessionHeader,
    earlier: EarlierHandling,
  ): Promise<StartSessionResult> {
    const [started] = await this.streams.eventsOf(sessionId, earlier);
    if (started?.event.type !== 'SessionStarted') throw new Error(`session ${sessionId} has no start`);
    const { header } = started.event.data;
    requireSameRequest(
      startDigestOf(header),
      startDigestOf(requested),
      () =>
        new IdempotencyMismatchError('sessionId', sessionId, 'a session with another cwd, title or parent'),
    );
    return { sessionId, header, revision: started.revision, alreadyStarted: true };
  }
}
