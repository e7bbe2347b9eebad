// The one runner of durable work (DESIGN.md decision 5): a catch-up subscription to the store,
// resumed after the lowest checkpoint of its processors, whose events are decoded once and
// handed to every processor that reads their type. Each processor runs its events partitioned
// by stream — one stream's events in order, different streams concurrently, the slots shared
// fairly between tenants (partition-scheduler.ts) — and keeps its own checkpoint: the position
// just before its first event not finished yet, stored after a flush, so a crash redelivers at
// least once and never skips. An event whose handling keeps failing is given up or parks its
// stream for that processor (FailurePolicy), so one stream never stops the others. When the
// subscription fails (the store went away), the runner can start again from its checkpoints
// after a pause that doubles. A processor with too much queued makes the runner stop reading
// until it has room, so memory stays bounded.
import { headPosition, type EventFilter, type RecordedEvent, type Subscription } from '@strata/event-store';
import { dispatchEvent, waitForRoom } from './event-dispatch';
import type { ParkedPartition } from './parked-partitions';
import { isReached, PositionWaiters, type PositionWait } from './position-waiters';
import { isAfter, lowest } from './positions';
import {
  DEFAULT_MAX_QUEUED,
  DEFAULT_PROGRESS_INTERVAL,
  ProcessorRunnerStoppedError,
  RESET_CHECKPOINT,
  UnknownProcessorError,
  type ProcessorRunnerOptions,
  type ProcessorRunnerStatus,
  type RebuildReport,
  type RunnerLag,
  type RunnerState,
  type WaitScope,
} from './processor-runner-types';
import type { ProcessorSlot } from './processor-slot';
import { RestartBackoff } from './restart-backoff';
import { createSlots, subscriptionFilter } from './runner-slots';
import { Signal } from './signal';

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export class ProcessorRunner<Message> {
  readonly name: string;
  private readonly slots: ProcessorSlot<Message>[];
  private readonly filter: EventFilter;
  private readonly maxQueued: number;
  private readonly progressInterval: number;
  private readonly restarts: RestartBackoff | undefined;
  private subscription: Subscription | undefined;
  private loop: Promise<void> | undefined;
  private stopping = new AbortController();
  private state: RunnerState = 'idle';
  private caughtUpSignal = new Signal();
  /** The caught-up position the processors must reach before the runner is live. */
  private caughtUpTarget: bigint | null | undefined;
  private readonly waiters = new PositionWaiters();
  private lastSeen: bigint | null = null;
  private eventsRead = 0;
  private eventsReadAtStart = 0;
  private targetPosition: bigint | null = null;
  private failure: unknown;
  /** Set by `stop()`: a restart that was pending does nothing. */
  private stoppedByCaller = false;

  constructor(private readonly options: ProcessorRunnerOptions<Message>) {
    this.name = options.name;
    this.slots = createSlots(options, {
      onFailure: (error) => this.fail(error),
      onFlushed: () => this.afterFlush(),
      // Once the history has been read, every event finished is flushed at once.
      isLive: () => this.state === 'live' || this.caughtUpTarget !== undefined,
      isCatchingUp: () => this.state === 'catching_up',
    });
    this.filter = subscriptionFilter(options);
    this.maxQueued = options.maxQueued ?? DEFAULT_MAX_QUEUED;
    this.progressInterval = options.progressInterval ?? DEFAULT_PROGRESS_INTERVAL;
    this.restarts =
      options.restartAfterFailure === true ? new RestartBackoff(() => this.restart()) : undefined;
  }

  get isRunning(): boolean {
    return this.state === 'catching_up' || this.state === 'live';
  }

  /** The subscription's filter: the processors' event types in the configured streams. */
  get eventFilter(): EventFilter {
    return this.filter;
  }

  /**
   * Loads the checkpoints and subscribes after the lowest; events are handled in the background
   * from then on. Resolves once subscribed (await `whenCaughtUp()` for the history).
   */
  async start(): Promise<void> {
    if (this.isRunning) throw new Error(`the ${this.name} runner is already running`);
    if (this.caughtUpSignal.isSettled) this.caughtUpSignal = new Signal();
    this.failure = undefined;
    this.state = 'catching_up';
    this.stoppedByCaller = false;
    this.caughtUpTarget = undefined;
    this.stopping = new AbortController();
    try {
      const head = await this.headPosition(undefined);
      this.targetPosition = await this.headPosition(this.filter);
      for (const slot of this.slots) await slot.prepare(head, this.stopping.signal);
    } catch (error) {
      this.fail(error);
      throw error;
    }
    const from = lowest(this.slots.map((slot) => slot.startAfter));
    this.lastSeen = from;
    this.eventsReadAtStart = this.eventsRead;
    const subscription = this.options.store.subscribe({ fromPosition: from ?? 'start', filter: this.filter });
    this.subscription = subscription;
    this.loop = this.consume(subscription, this.stopping.signal);
  }

  /** Resolves when the history present at the start is handled and flushed by every processor. */
  whenCaughtUp(): Promise<void> {
    return this.caughtUpSignal.promise;
  }

  /** Resolves once every event at or below `position` is handled and flushed (by the named processors). */
  waitForPosition(position: bigint, processorNames?: readonly string[]): Promise<void> {
    return this.wait({ position, scope: undefined, slots: this.selectSlots(processorNames) });
  }

  /**
   * Resolves once every event of one partition (or of one tenant) at or below `position` is
   * handled and flushed: other partitions that hold the checkpoint back (a burst of another
   * tenant) do not delay it.
   */
  waitForScope(scope: WaitScope, position: bigint, processorNames?: readonly string[]): Promise<void> {
    return this.wait({ position, scope, slots: this.selectSlots(processorNames) });
  }

  private wait(wait: PositionWait): Promise<void> {
    if (isReached(wait)) return Promise.resolve();
    if (!this.isRunning) {
      return Promise.reject(
        this.state === 'failed' ? asError(this.failure) : new ProcessorRunnerStoppedError(this.name),
      );
    }
    return this.waiters.add(wait);
  }

  /** Resolves once every event of the subscription's streams in the store is handled, the processors' own writes included. */
  async drain(): Promise<void> {
    for (;;) {
      const head = await this.headPosition(this.filter);
      if (head !== null) await this.waitForPosition(head);
      if ((await this.headPosition(this.filter)) === head) return;
    }
  }

  /**
   * Stops reading; the events running go on to their end (their handlers see the abort signal),
   * queued ones are left for the next start; then flushes and stores the checkpoints.
   */
  async stop(): Promise<void> {
    this.stoppedByCaller = true;
    await this.halt();
  }

  /** Stops for good: no restart is ever scheduled again. */
  async dispose(): Promise<void> {
    this.restarts?.close();
    await this.stop();
  }

  /**
   * Rebuilds the named processors (all by default): stores the reset checkpoint, releases their
   * parked partitions, resets them and replays the log. A running runner goes on live afterwards;
   * an idle one stops again. Processors not named keep their state and skip what they have seen.
   */
  async rebuild(processorNames?: readonly string[]): Promise<RebuildReport> {
    const selected = this.selectSlots(processorNames);
    const wasRunning = this.isRunning;
    if (wasRunning) await this.halt();
    for (const slot of selected) await slot.reset(RESET_CHECKPOINT);
    await this.start();
    await this.whenCaughtUp();
    const statuses = selected.map((slot) => slot.status());
    const report: RebuildReport = {
      processors: selected.map((slot) => slot.name),
      eventsRead: this.eventsRead - this.eventsReadAtStart,
      eventsHandled: statuses.reduce((total, status) => total + status.eventsHandled, 0),
      parkedPartitions: statuses.reduce((total, status) => total + status.parkedPartitions, 0),
      position: lowest(selected.map((slot) => slot.flushed)),
    };
    if (!wasRunning) await this.stop();
    return report;
  }

  /** Whether a processor (any, when none is named) has parked the partition. */
  isParked(partition: string, processorName?: string): ParkedPartition | undefined {
    for (const slot of this.selectSlots(processorName === undefined ? undefined : [processorName])) {
      const record = slot.parked().find((parked) => parked.partition === partition);
      if (record !== undefined) return record;
    }
    return undefined;
  }

  /** Every parked partition of every processor. */
  parked(): readonly ParkedPartition[] {
    return this.slots.flatMap((slot) => slot.parked());
  }

  status(): ProcessorRunnerStatus {
    return {
      name: this.name,
      state: this.state,
      position: lowest(this.slots.map((slot) => slot.flushed)),
      eventsRead: this.eventsRead - this.eventsReadAtStart,
      processors: this.slots.map((slot) => slot.status()),
      failure: this.failure === undefined ? null : asError(this.failure).message,
    };
  }

  /** How far the lowest checkpoint is behind the last event of the subscription's streams. */
  async lag(): Promise<RunnerLag> {
    const headPosition = await this.headPosition(this.filter);
    const appliedPosition = lowest(this.slots.map((slot) => slot.flushed));
    const behind = headPosition === null ? 0n : headPosition - (appliedPosition ?? 0n);
    return {
      lastSeenPosition: this.lastSeen,
      appliedPosition,
      headPosition,
      positionsBehind: behind > 0n ? behind : 0n,
    };
  }

  private selectSlots(processorNames: readonly string[] | undefined): ProcessorSlot<Message>[] {
    if (processorNames === undefined) return this.slots;
    const known = this.slots.map((slot) => slot.name);
    return processorNames.map((name) => {
      const slot = this.slots.find((candidate) => candidate.name === name);
      if (slot === undefined) throw new UnknownProcessorError(name, known);
      return slot;
    });
  }

  private async consume(subscription: Subscription, signal: AbortSignal): Promise<void> {
    try {
      for await (const message of subscription) {
        if (signal.aborted) break;
        if (message.kind === 'caught_up') {
          this.caughtUp(message.position);
          continue;
        }
        if (message.kind === 'checkpoint') {
          this.passCheckpoint(message.position);
          continue;
        }
        this.dispatch(message.event);
        this.waiters.release();
        this.reportProgress(message.event.position);
        await waitForRoom(this.slots, this.maxQueued, signal);
      }
      if (!signal.aborted) this.fail(new Error('the store subscription ended'));
    } catch (error) {
      if (!signal.aborted) this.fail(error);
    }
  }

  /** Hands one event to every processor that reads it (decoded once, and only when one does). */
  private dispatch(event: RecordedEvent): void {
    this.eventsRead += 1;
    if (isAfter(event.position, this.lastSeen)) this.lastSeen = event.position;
    dispatchEvent(event, this.slots, this.options.decode);
  }

  /**
   * The store passed over events up to `position` that no processor reads (a server checkpoint
   * of a filtered subscription): every processor's checkpoint moves there, stored at once, so a
   * restart does not read that stretch again.
   */
  private passCheckpoint(position: bigint): void {
    if (isAfter(position, this.lastSeen)) this.lastSeen = position;
    for (const slot of this.slots) slot.passCheckpoint(position);
  }

  private caughtUp(position: bigint | null): void {
    if (position !== null) {
      if (isAfter(position, this.lastSeen)) this.lastSeen = position;
      for (const slot of this.slots) slot.pass(position);
    }
    this.caughtUpTarget = position;
    for (const slot of this.slots) slot.flush().catch((error: unknown) => this.fail(error));
    this.afterFlush();
  }

  /** A checkpoint moved: release the waiters it satisfies, and go live once caught up. */
  private afterFlush(): void {
    const target = this.caughtUpTarget;
    if (
      this.state === 'catching_up' &&
      target !== undefined &&
      (target === null || this.slots.every((slot) => !isAfter(target, slot.flushed)))
    ) {
      this.state = 'live';
      this.caughtUpSignal.resolve();
    }
    this.waiters.release();
  }

  private reportProgress(position: bigint): void {
    const eventsRead = this.eventsRead - this.eventsReadAtStart;
    if (this.options.onProgress === undefined || this.state !== 'catching_up') return;
    if (eventsRead % this.progressInterval !== 0) return;
    this.options.onProgress({ eventsRead, position, targetPosition: this.targetPosition });
  }

  /** Closes the subscription, lets the running events end, flushes and stores the checkpoints. */
  private async halt(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    this.stopping.abort(new ProcessorRunnerStoppedError(this.name));
    await subscription?.close();
    await this.loop;
    this.loop = undefined;
    await Promise.all(this.slots.map((slot) => slot.close()));
    if (this.state !== 'failed') {
      try {
        await Promise.all(this.slots.map((slot) => slot.flush()));
      } catch (error) {
        this.failure = error;
        this.state = 'failed';
      }
      if (this.state !== 'failed') this.state = this.state === 'idle' ? 'idle' : 'stopped';
    }
    const stopped =
      this.state === 'failed' ? asError(this.failure) : new ProcessorRunnerStoppedError(this.name);
    this.caughtUpSignal.reject(stopped);
    this.waiters.rejectAll(stopped);
  }

  private fail(error: unknown): void {
    if (this.state === 'failed' || this.state === 'stopped' || this.state === 'idle') return;
    this.failure = error;
    this.state = 'failed';
    this.stopping.abort(asError(error));
    void this.subscription?.close().catch(() => undefined);
    this.caughtUpSignal.reject(error);
    this.waiters.rejectAll(asError(error));
    this.options.onError?.(error);
    this.restarts?.schedule();
  }

  /** Starts the failed runner again from its checkpoints; a failure schedules the next try. */
  private async restart(): Promise<void> {
    if (this.stoppedByCaller || this.state !== 'failed') return;
    try {
      await this.halt();
      await this.start();
    } catch {
      this.restarts?.schedule();
    }
  }

  private headPosition(filter: EventFilter | undefined): Promise<bigint | null> {
    return headPosition(this.options.store, filter);
  }
}
