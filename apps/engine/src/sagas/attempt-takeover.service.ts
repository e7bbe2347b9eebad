// Takes over the attempts of an engine gone for good (decision 0017). Every `renewEveryMs` an
// engine with a configured id reads the attempt starts and ends appended since its previous look
// (OpenAttemptsIndex), and for each other engine that owns open attempts reads the last event of
// its lease stream. When that lease expired, it claims it by appending a takeover to the stream at
// the revision it read: one engine wins the claim, and an owner that renewed in the meantime keeps
// its attempts. The winner ends each of them as a restart of the owner would: `interrupted`, the
// terminal event's metadata naming who took over, from whom, and when the lease expired (through
// the session's decider, which lets an attempt end once whoever else tries). An automatic
// compaction is asked for again, as the owner's sagas would have redelivered it, under an attempt
// id derived from the one taken over, so every engine that asks names the same attempt.
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ConcurrencyError, sessionIdSeed, type EventStore } from '@strata/event-store';
import { SESSION_STREAM_PREFIX } from '@strata/session';
import { attemptIdFromTrigger, attemptMetadata } from '../attempts/attempt-ids';
import { appendLeaseEvent, ENGINE_LEASE_SETTINGS, lastLeaseRecord } from '../attempts/engine-lease.service';
import { decideTakeover, leaseTakeover } from '../attempts/engine-leases';
import { interruptedEnding } from '../attempts/interrupted-attempts.service';
import {
  ATTEMPT_END_TYPES,
  ATTEMPT_START_TYPES,
  OpenAttemptsIndex,
  type IndexedAttempt,
} from '../attempts/open-attempts-index';
import type { EngineLeaseSettings } from '../config/engine-lease-settings';
import { SessionStreams } from '../session-streams/session-streams.service';
import { CompactSessionCommand } from '../sessions/compact-session/compact-session.command';
import { describeError } from '../shared/attempt-errors';
import type { Clock } from '../shared/clock';
import type { EngineIdentity } from '../shared/engine-identity';
import { CLOCK, ENGINE_IDENTITY, EVENT_STORE } from '../shared/injection-tokens';

/** The metadata keys of a terminal event written by a takeover. */
export const TAKEOVER_METADATA = {
  by: 'takenOverBy',
  from: 'takenOverFrom',
  leaseExpiredAt: 'leaseExpiredAt',
} as const;

/** The purpose an automatic compaction asked for again after a takeover derives its id from. */
const RERUN_PURPOSE = 'takeover';
/** How many takeovers of takeovers are followed (an engine that took over, and died too). */
const MAX_CHAIN = 8;

export interface TakenOverAttempt extends IndexedAttempt {
  readonly leaseExpiredAt: string;
}

@Injectable()
export class AttemptTakeover implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('AttemptTakeover');
  private readonly index = new OpenAttemptsIndex();
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<readonly TakenOverAttempt[]> | undefined;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly streams: SessionStreams,
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENGINE_IDENTITY) private readonly identity: EngineIdentity,
    @Inject(ENGINE_LEASE_SETTINGS) private readonly settings: EngineLeaseSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.identity.configured) return;
    this.timer = setInterval(() => void this.sweep(), this.settings.renewEveryMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }

  /** One look (one at a time): the attempts this engine took over in it. Never throws. */
  sweep(): Promise<readonly TakenOverAttempt[]> {
    this.sweeping ??= this.takeOverExpired()
      .catch((error: unknown) => {
        this.logger.error(`could not look for attempts to take over: ${describeError(error)}`);
        return [];
      })
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async takeOverExpired(): Promise<readonly TakenOverAttempt[]> {
    const filter = {
      streamPrefixes: [SESSION_STREAM_PREFIX],
      eventTypes: [...ATTEMPT_START_TYPES, ...ATTEMPT_END_TYPES],
    };
    for await (const recorded of this.store.readAll({ fromPosition: this.index.fromPosition, filter })) {
      this.index.apply(recorded);
    }
    const taken: TakenOverAttempt[] = [];
    for (const [engine, attempts] of this.index.byEngine()) {
      if (engine === this.identity.id) continue;
      const leaseExpiredAt = await this.claim(engine, MAX_CHAIN);
      if (leaseExpiredAt === undefined) continue;
      for (const attempt of attempts) {
        if (await this.end(attempt, leaseExpiredAt)) taken.push({ ...attempt, leaseExpiredAt });
      }
    }
    return taken;
  }

  /**
   * Whether this engine holds the takeover of `engine`'s attempts: the expiry of the lease it
   * claimed (now, or in an earlier look), else undefined. An engine whose attempts were taken
   * over by a third that is gone too is claimed through that one.
   */
  private async claim(engine: string, hops: number): Promise<string | undefined> {
    const decision = decideTakeover(await lastLeaseRecord(this.store, engine), this.clock.now());
    switch (decision.kind) {
      case 'unknown':
      case 'alive':
        return undefined;
      case 'taken':
        if (decision.by === this.identity.id) return decision.leaseExpiredAt;
        if (hops <= 0) return undefined;
        return (await this.claim(decision.by, hops - 1)) === undefined ? undefined : decision.leaseExpiredAt;
      case 'claim': {
        const now = this.clock.now();
        const claim = leaseTakeover(engine, this.identity.id, decision.leaseExpiredAt, now);
        try {
          await appendLeaseEvent(this.store, engine, claim, decision.expectedRevision, {
            writer: this.identity.id,
            now,
          });
        } catch (error) {
          // Another engine claimed this expiry first, or the owner renewed its lease: not ours.
          if (error instanceof ConcurrencyError) return undefined;
          throw error;
        }
        return decision.leaseExpiredAt;
      }
    }
  }

  /** Ends one attempt taken over; true when this engine's write ended it. */
  private async end(attempt: IndexedAttempt, leaseExpiredAt: string): Promise<boolean> {
    const { sessionId, attemptId, kind, engine } = attempt;
    try {
      const written = await this.streams.execute(
        sessionId,
        (state) => {
          if (state.status !== 'active') return [];
          const open = state.getAttempt(attemptId);
          return open === undefined || open.outcome !== null
            ? []
            : [interruptedEnding(open, this.clock.now())];
        },
        {
          idSeed: sessionIdSeed(sessionId, 'interrupted', attemptId),
          metadata: {
            ...attemptMetadata(sessionId, attemptId, kind),
            [TAKEOVER_METADATA.by]: this.identity.id,
            [TAKEOVER_METADATA.from]: engine,
            [TAKEOVER_METADATA.leaseExpiredAt]: leaseExpiredAt,
          },
        },
      );
      if (written.events.length === 0 || written.alreadyHandled) {
        // Ended by someone else (or its session is gone): nothing left to take over.
        this.index.forget(sessionId, attemptId);
        return false;
      }
    } catch (error) {
      this.logger.error(`could not take over attempt ${attemptId} of ${sessionId}: ${describeError(error)}`);
      return false;
    }
    this.logger.warn(
      `${kind} attempt ${attemptId} of session ${sessionId} was open on engine ${engine ?? '?'}, ` +
        `whose lease expired at ${leaseExpiredAt}; taken over and recorded as failed (interrupted)`,
    );
    if (attempt.trigger === 'threshold' || attempt.trigger === 'overflow') this.askAgain(attempt);
    return true;
  }

  /** Asks for the automatic compaction again (its outcome is the sagas' business, not the look's). */
  private askAgain({ sessionId, attemptId, trigger }: IndexedAttempt): void {
    if (trigger === null || trigger === 'manual') return;
    const again = new CompactSessionCommand(sessionId, {
      trigger,
      attemptId: attemptIdFromTrigger(attemptId, RERUN_PURPOSE),
      whenRunningElsewhere: 'leave',
    });
    this.commands.execute(again).catch((error: unknown) => {
      this.logger.warn(`the compaction asked again for ${sessionId} did not run: ${describeError(error)}`);
    });
  }
}
