// The checkpointed projection runner (DESIGN.md decisions 5 and 6): one catch-up subscription
// to the session streams feeds every projection in position order. Each projection has its own
// checkpoint (the last position it has processed); durable ones store it through the
// CheckpointStore after flushing and resume from it after a restart, so the subscription starts
// at the lowest checkpoint and each projection skips what it has already seen. Events are
// validated once; one that is not a session event is reported and skipped. A rebuild stores the
// reset checkpoint, resets the projections and replays the log.
import type { RecordedEvent, Subscription } from '@strata/event-store';
import type { Projection } from './projection';
import {
  isSessionEventType,
  readProjectedEvent,
  sessionIdOfStream,
  type InvalidEventReport,
  type ProjectedEvent,
} from './projected-event';
import {
  checkpointIdOf,
  DEFAULT_CHECKPOINT_INTERVAL,
  DEFAULT_PROGRESS_INTERVAL,
  ProjectionRunnerStoppedError,
  RESET_CHECKPOINT,
  UnknownProjectionError,
  type ProjectionLag,
  type ProjectionRunnerOptions,
  type ProjectionRunnerStatus,
  type RebuildReport,
  type RunnerState,
} from './projection-runner-types';
import { Signal } from './signal';
import { sessionHeadPosition, sessionStreamFilter, storeHeadPosition } from './store-head';

interface Slot {
  readonly projection: Projection;
  readonly eventTypes: ReadonlySet<string>;
  checkpoint: bigint | null;
  /** A volatile projection gets its start position at its first start after creation or a reset. */
  positioned: boolean;
  dirty: boolean;
  eventsApplied: number;
}

interface PositionWaiter {
  readonly position: bigint;
  readonly signal: Signal;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function isAfter(position: bigint, checkpoint: bigint | null): boolean {
  return checkpoint === null || position > checkpoint;
}

function lowest(positions: readonly (bigint | null)[]): bigint | null {
  let result: bigint | null | undefined;
  for (const position of positions) {
    if (position === null) return null;
    if (result === undefined || result === null || position < result) result = position;
  }
  return result ?? null;
}

export class ProjectionRunner {
  private readonly slots: Slot[];
  private readonly checkpointInterval: number;
  private readonly progressInterval: number;
  private subscription: Subscription | undefined;
  private loop: Promise<void> | undefined;
  private state: RunnerState = 'idle';
  private caughtUpSignal = new Signal();
  private waiters: PositionWaiter[] = [];
  private lastSeen: bigint | null = null;
  private applied: bigint | null = null;
  private sinceFlush = 0;
  private eventsRead = 0;
  private eventsReadAtStart = 0;
  private targetPosition: bigint | null = null;
  private invalidEvents = 0;
  private failure: unknown;

  constructor(private readonly options: ProjectionRunnerOptions) {
    const names = new Set<string>();
    for (const projection of options.projections) {
      if (names.has(projection.name)) throw new Error(`two projections are called '${projection.name}'`);
      names.add(projection.name);
    }
    this.slots = options.projections.map((projection) => ({
      projection,
      eventTypes: new Set(projection.eventTypes),
      checkpoint: null,
      positioned: false,
      dirty: false,
      eventsApplied: 0,
    }));
    this.checkpointInterval = options.checkpointInterval ?? DEFAULT_CHECKPOINT_INTERVAL;
    this.progressInterval = options.progressInterval ?? DEFAULT_PROGRESS_INTERVAL;
  }

  get isRunning(): boolean {
    return this.state === 'catching_up' || this.state === 'live';
  }

  /**
   * Loads the checkpoints and subscribes; events are applied in the background from then on.
   * Resolves once subscribed (await `whenCaughtUp()` for the history).
   */
  async start(): Promise<void> {
    if (this.isRunning) throw new Error('the projection runner is already running');
    this.failure = undefined;
    if (this.caughtUpSignal.isSettled) this.caughtUpSignal = new Signal();
    this.state = 'catching_up';
    try {
      const head = await storeHeadPosition(this.options.store);
      this.targetPosition = await sessionHeadPosition(this.options.store);
      for (const slot of this.slots) {
        if (slot.projection.durability === 'durable') {
          const stored = await this.options.checkpoints.load(checkpointIdOf(slot.projection.name));
          slot.checkpoint = stored === null || stored < 0n ? null : stored;
        } else if (!slot.positioned) {
          slot.checkpoint = head;
        }
        slot.positioned = true;
      }
    } catch (error) {
      this.fail(error);
      throw error;
    }
    const from = lowest(this.slots.map((slot) => slot.checkpoint));
    this.lastSeen = from;
    this.applied = from;
    this.eventsReadAtStart = this.eventsRead;
    const subscription = this.options.store.subscribe({
      fromPosition: from ?? 'start',
      filter: sessionStreamFilter,
    });
    this.subscription = subscription;
    this.loop = this.consume(subscription);
  }

  /** Resolves when the history present at the start has been applied and flushed. */
  whenCaughtUp(): Promise<void> {
    return this.caughtUpSignal.promise;
  }

  /** Resolves once every session event at or below `position` is applied and flushed. */
  waitForPosition(position: bigint): Promise<void> {
    if (this.applied !== null && position <= this.applied) return Promise.resolve();
    if (this.state === 'failed') return Promise.reject(asError(this.failure));
    const signal = new Signal();
    this.waiters.push({ position, signal });
    return signal.promise;
  }

  /** Stops the subscription after the event in hand, flushes and stores the checkpoints. */
  async stop(): Promise<void> {
    const subscription = this.subscription;
    if (subscription === undefined) return;
    this.subscription = undefined;
    await subscription.close();
    await this.loop;
    this.loop = undefined;
    if (this.state !== 'failed') {
      await this.flushAll();
      this.state = 'stopped';
    }
    const stopped = new ProjectionRunnerStoppedError();
    this.caughtUpSignal.reject(stopped);
    for (const waiter of this.waiters) waiter.signal.reject(stopped);
    this.waiters = [];
  }

  /**
   * Rebuilds the named projections (all by default) from the log: stores the reset checkpoint,
   * resets them, and replays until caught up. A running runner goes on live afterwards; an idle
   * one stops again. Projections not named keep their state and skip what they have seen.
   */
  async rebuild(projectionNames?: readonly string[]): Promise<RebuildReport> {
    const selected = this.selectSlots(projectionNames);
    const wasRunning = this.isRunning;
    if (wasRunning) await this.stop();
    for (const slot of selected) {
      if (slot.projection.durability === 'durable') {
        await this.options.checkpoints.store(checkpointIdOf(slot.projection.name), RESET_CHECKPOINT);
      }
      await slot.projection.reset();
      slot.checkpoint = null;
      slot.positioned = false;
      slot.dirty = false;
      slot.eventsApplied = 0;
    }
    const invalidBefore = this.invalidEvents;
    await this.start();
    await this.whenCaughtUp();
    const report: RebuildReport = {
      projections: selected.map((slot) => slot.projection.name),
      eventsRead: this.eventsRead - this.eventsReadAtStart,
      eventsApplied: selected.reduce((total, slot) => total + slot.eventsApplied, 0),
      invalidEvents: this.invalidEvents - invalidBefore,
      position: this.applied,
    };
    if (!wasRunning) await this.stop();
    return report;
  }

  status(): ProjectionRunnerStatus {
    return {
      state: this.state,
      appliedPosition: this.applied,
      eventsRead: this.eventsRead,
      invalidEvents: this.invalidEvents,
      projections: this.slots.map((slot) => ({
        name: slot.projection.name,
        durability: slot.projection.durability,
        checkpoint: slot.checkpoint,
        eventsApplied: slot.eventsApplied,
      })),
      failure: this.failure === undefined ? null : asError(this.failure).message,
    };
  }

  /** How far the applied position is behind the last session event in the store. */
  async lag(): Promise<ProjectionLag> {
    const headPosition = await sessionHeadPosition(this.options.store);
    const appliedPosition = this.applied;
    const behind = headPosition === null ? 0n : headPosition - (appliedPosition ?? 0n);
    return {
      lastSeenPosition: this.lastSeen,
      appliedPosition,
      headPosition,
      positionsBehind: behind > 0n ? behind : 0n,
    };
  }

  private selectSlots(projectionNames: readonly string[] | undefined): Slot[] {
    if (projectionNames === undefined) return this.slots;
    const known = this.slots.map((slot) => slot.projection.name);
    return projectionNames.map((name) => {
      const slot = this.slots.find((candidate) => candidate.projection.name === name);
      if (slot === undefined) throw new UnknownProjectionError(name, known);
      return slot;
    });
  }

  private async consume(subscription: Subscription): Promise<void> {
    try {
      for await (const message of subscription) {
        if (message.kind === 'caught_up') {
          if (message.position !== null) this.advanceTo(message.position);
          await this.flushAll();
          this.state = 'live';
          this.caughtUpSignal.resolve();
          continue;
        }
        await this.handle(message.event);
        this.sinceFlush += 1;
        if (this.state === 'live' || this.sinceFlush >= this.checkpointInterval) await this.flushAll();
        this.reportProgress(message.event.position);
      }
    } catch (error) {
      this.fail(error);
      await subscription.close().catch(() => undefined);
    }
  }

  private async handle(recorded: RecordedEvent): Promise<void> {
    this.eventsRead += 1;
    const sessionId = sessionIdOfStream(recorded.streamId);
    const interested =
      sessionId === undefined
        ? []
        : this.slots.filter(
            (slot) =>
              slot.eventTypes.has(recorded.type) &&
              isAfter(recorded.position, slot.checkpoint) &&
              (slot.projection.accepts === undefined || slot.projection.accepts(sessionId)),
          );
    if (!isSessionEventType(recorded.type) || interested.length > 0) {
      const result = readProjectedEvent(recorded);
      if (result.kind === 'invalid') this.reportInvalid(result.report);
      else await this.applyTo(interested, result.event);
    }
    this.advanceTo(recorded.position);
  }

  private async applyTo(slots: readonly Slot[], event: ProjectedEvent): Promise<void> {
    for (const slot of slots) {
      await slot.projection.apply(event);
      slot.eventsApplied += 1;
    }
  }

  /** Every projection has now processed everything up to `position`. */
  private advanceTo(position: bigint): void {
    if (isAfter(position, this.lastSeen)) this.lastSeen = position;
    for (const slot of this.slots) {
      if (isAfter(position, slot.checkpoint)) {
        slot.checkpoint = position;
        slot.dirty = true;
      }
    }
  }

  private async flushAll(): Promise<void> {
    this.sinceFlush = 0;
    for (const slot of this.slots) {
      if (!slot.dirty) continue;
      await slot.projection.flush();
      if (slot.projection.durability === 'durable' && slot.checkpoint !== null) {
        await this.options.checkpoints.store(checkpointIdOf(slot.projection.name), slot.checkpoint);
      }
      slot.dirty = false;
    }
    this.applied = this.lastSeen;
    const applied = this.applied;
    if (applied === null) return;
    this.waiters = this.waiters.filter((waiter) => {
      if (waiter.position > applied) return true;
      waiter.signal.resolve();
      return false;
    });
  }

  private reportProgress(position: bigint): void {
    const eventsRead = this.eventsRead - this.eventsReadAtStart;
    if (this.options.onProgress === undefined || this.state !== 'catching_up') return;
    if (eventsRead % this.progressInterval !== 0) return;
    this.options.onProgress({ eventsRead, position, targetPosition: this.targetPosition });
  }

  private reportInvalid(report: InvalidEventReport): void {
    this.invalidEvents += 1;
    this.options.onInvalidEvent?.(report);
  }

  private fail(error: unknown): void {
    this.failure = error;
    this.state = 'failed';
    this.caughtUpSignal.reject(error);
    for (const waiter of this.waiters) waiter.signal.reject(error);
    this.waiters = [];
    this.options.onError?.(error);
  }
}
