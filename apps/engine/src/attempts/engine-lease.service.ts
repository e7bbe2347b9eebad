// Holds this engine's liveness lease (decision 0017): at start-up, before it starts an attempt
// when the lease would lapse before the next renewal, and every `renewEveryMs` while attempts run
// here, it appends a renewal to its stream `strata-engine-<id>`, at the revision it wrote last. An
// idle engine lets its lease lapse: with no attempt of its own open there is nothing to take over,
// and the stream grows with the time attempts run, not with the time the engine is up. An append
// refused there means another engine wrote to the stream: a takeover of the attempts this engine
// had open, after its lease expired (it was stopped, or paused longer than the lease). The engine
// says so and holds a new lease from then on; the attempts taken over were ended by the other
// engine, and their own writes here are refused as repeats. Only an engine with a configured id
// holds a lease: one without assumes it is alone on its store.
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ConcurrencyError, type EventStore, type RecordedEvent } from '@strata/event-store';
import { sealEvents } from '@strata/integrity';
import type { EngineLeaseSettings } from '../config/engine-lease-settings';
import { describeError } from '../shared/attempt-errors';
import type { Clock } from '../shared/clock';
import type { EngineIdentity } from '../shared/engine-identity';
import { CLOCK, ENGINE_IDENTITY, EVENT_STORE } from '../shared/injection-tokens';
import { RunningAttempts } from './running-attempts.service';
import {
  engineLeaseStream,
  leaseRenewal,
  parseEngineLeaseEvent,
  type EngineLeaseEvent,
  type EngineLeaseRecord,
} from './engine-leases';

export const ENGINE_LEASE_SETTINGS = Symbol('ENGINE_LEASE_SETTINGS');

/** The last event of an engine's lease stream, as stored; undefined for a stream without events. */
async function lastStored(store: EventStore, engineId: string): Promise<RecordedEvent | undefined> {
  const stream = engineLeaseStream(engineId);
  for await (const recorded of store.readStream(stream, { direction: 'backwards', maxCount: 1 }))
    return recorded;
  return undefined;
}

/** The last event of an engine's lease stream; undefined when it has none (or not a lease event). */
export async function lastLeaseRecord(
  store: EventStore,
  engineId: string,
): Promise<EngineLeaseRecord | undefined> {
  const recorded = await lastStored(store, engineId);
  const event = recorded === undefined ? undefined : parseEngineLeaseEvent(recorded);
  return event === undefined || recorded === undefined ? undefined : { event, revision: recorded.revision };
}

/**
 * Appends a lease event right after the stream's event at `expectedRevision` (none: a new stream),
 * sealed in the stream's hash chain as every engine write is, with `writer` as its actor; throws
 * `ConcurrencyError` when the stream moved on from there.
 */
export async function appendLeaseEvent(
  store: EventStore,
  engineId: string,
  event: EngineLeaseEvent,
  expectedRevision: bigint | null,
  options: { readonly writer: string; readonly now: number },
): Promise<bigint> {
  const stream = engineLeaseStream(engineId);
  const last = await lastStored(store, engineId);
  const lastRevision = last?.revision ?? null;
  if (lastRevision !== expectedRevision) {
    throw new ConcurrencyError(stream, expectedRevision ?? 'no_stream', lastRevision);
  }
  const sealed = sealEvents(
    stream,
    [{ id: randomUUID(), type: event.type, data: event.data }],
    last,
    { actor: options.writer },
    new Date(options.now),
  );
  const written = await store.appendToStream(stream, sealed, {
    expectedRevision: expectedRevision ?? 'no_stream',
  });
  return written.nextExpectedRevision;
}

@Injectable()
export class EngineLease implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('EngineLease');
  private revision: bigint | null = null;
  /** When the last renewal this engine wrote expires (epoch ms); 0 before the first. */
  private expiresAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENGINE_IDENTITY) private readonly identity: EngineIdentity,
    @Inject(ENGINE_LEASE_SETTINGS) readonly settings: EngineLeaseSettings,
    private readonly running: RunningAttempts,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.identity.configured) return;
    // The first renewal after a restart finds the stream's earlier events and appends after them.
    await this.renew();
    this.timer = setInterval(() => {
      if (this.running.count > 0) void this.renew();
    }, this.settings.renewEveryMs);
    this.timer.unref();
  }

  /**
   * Renews the lease, before an attempt starts, when it would lapse before the next renewal
   * (an engine that ran no attempt for a while let it lapse); at once otherwise.
   */
  async ensureLive(): Promise<void> {
    if (!this.identity.configured) return;
    if (this.clock.now() + this.settings.renewEveryMs < this.expiresAt) return;
    await this.renew();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.renewing;
  }

  /** Appends a renewal (one at a time); a failure is logged, and the next renewal tries again. */
  renew(): Promise<void> {
    this.renewing ??= this.appendRenewal()
      .catch((error: unknown) =>
        this.logger.error(`could not renew the engine lease: ${describeError(error)}`),
      )
      .finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async appendRenewal(): Promise<void> {
    const now = this.clock.now();
    const renewal = leaseRenewal(this.identity.id, now, this.settings.durationMs);
    const options = { writer: this.identity.id, now };
    try {
      this.revision = await appendLeaseEvent(this.store, this.identity.id, renewal, this.revision, options);
      this.expiresAt = now + this.settings.durationMs;
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      const last = await lastLeaseRecord(this.store, this.identity.id);
      if (last?.event.type === 'EngineLeaseTakenOver') {
        this.logger.warn(
          `engine ${this.identity.id}: its lease expired at ${last.event.data.leaseExpiredAt} and ` +
            `${last.event.data.by} took over the attempts it had open; holding a new lease`,
        );
      }
      const revision = last?.revision ?? null;
      this.revision = await appendLeaseEvent(this.store, this.identity.id, renewal, revision, options);
      this.expiresAt = now + this.settings.durationMs;
    }
  }
}
