// Adapters: TakeLease and ReleaseLease → the decider's, with the engine's clock and a fresh
// nonce for a new lease's token. The lease is recorded in the session's stream, so the stream's
// optimistic concurrency makes two engines taking it at once give it to one of them.
import { randomBytes } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Clock } from '../../shared/clock';
import { writeContextOf } from '../../shared/command-context';
import { CLOCK } from '../../shared/injection-tokens';
import { SessionStreams } from '../../session-streams/session-streams.service';
import { LeaseResult, ReleaseLeaseCommand, TakeLeaseCommand } from './session-lease.command';

@CommandHandler(TakeLeaseCommand)
export class TakeLeaseHandler implements ICommandHandler<TakeLeaseCommand> {
  constructor(
    private readonly streams: SessionStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ sessionId, request, context }: TakeLeaseCommand): Promise<LeaseResult> {
    const { holder, ttlMs, token } = request;
    const written = await this.streams.execute(
      sessionId,
      {
        type: 'TakeLease',
        data: {
          ttlMs,
          now: this.clock.now(),
          nonce: randomBytes(18).toString('base64url'),
          ...(holder !== undefined ? { holder } : {}),
          ...(token !== undefined ? { token } : {}),
        },
      },
      writeContextOf(context),
    );
    const lease = written.state.status === 'active' ? written.state.lease : null;
    if (lease === null) throw new Error(`the lease of session ${sessionId} was not recorded`);
    const { sequence, holder: leaseHolder, expiresAt } = lease;
    return {
      sessionId,
      token: lease.token,
      sequence,
      holder: leaseHolder,
      expiresAt,
      revision: written.revision,
    };
  }
}

@CommandHandler(ReleaseLeaseCommand)
export class ReleaseLeaseHandler implements ICommandHandler<ReleaseLeaseCommand> {
  constructor(
    private readonly streams: SessionStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ sessionId, token, context }: ReleaseLeaseCommand): Promise<void> {
    await this.streams.execute(
      sessionId,
      { type: 'ReleaseLease', data: { token, now: this.clock.now() } },
      writeContextOf(context),
    );
  }
}
