// One processor inside the runner: its position (a watermark over the events given to it), the
// partition scheduler that runs its events, its parked partitions, flushing and checkpoints,
// and its counters. The runner reads and dispatches; the slot does everything per processor.
// While the runner catches up, applying events gives the event loop its turn once per work
// slice, never per event; live events are applied without yielding, as a read may wait for them.
import {
  ERASURE_EVENT_TYPE,
  eventLoopSlice,
  type CheckpointStore,
  type RecordedEvent,
} from '@strata/event-store';
import type { ParkedPartition, ParkedPartitionStore } from './parked-partitions';
import { PartitionScheduler } from './partition-scheduler';
import { checkpointIdOf, type Processor } from './processor';
import type { DeliveryFailure, ProcessorStatus } from './processor-runner-types';
import { ScopeProgress, type ScopeEntry } from './scope-progress';
import { Watermark, type WatermarkTicket } from './watermark';

/** One event queued for a processor. */
export interface SlotWork<Message> {
  readonly event: RecordedEvent;
  readonly ticket: WatermarkTicket;
  /** Its place among the unfinished events of its partition and of its tenant. */
  readonly scopes: { readonly partition: ScopeEntry; readonly tenant: ScopeEntry };
  readonly tenant: string;
  /** The decoded message, or why the event could not be read. */
  readonly content:
    | { readonly kind: 'message'; readonly message: Message }
    | { readonly kind: 'erased' }
    | { readonly kind: 'invalid'; readonly detail: string };
}

export interface SlotSettings {
  readonly concurrency: number;
  readonly maxPerTenant: number;
  readonly maxDeliveries: number;
  readonly retryDelayMs: number;
  readonly checkpointInterval: number;
  readonly clock: () => Date;
}

export interface SlotCallbacks {
  readonly onDeliveryFailed?: ((failure: DeliveryFailure) => void) | undefined;
  readonly onGivenUp?: ((failure: DeliveryFailure) => void) | undefined;
  readonly onParked?: ((record: ParkedPartition) => void) | undefined;
  /** The slot failed as a whole (a flush, a checkpoint, a parked record could not be stored). */
  readonly onFailure: (error: unknown) => void;
  /** The slot's checkpoint moved (waiters may be released). */
  readonly onFlushed: () => void;
  /** Whether events are flushed at once (live) or every `checkpointInterval` (catching up). */
  readonly isLive: () => boolean;
  /** Whether applying gives the event loop its turn once per work slice (while catching up). */
  readonly isCatchingUp: () => boolean;
}

function isAfter(position: bigint, reference: bigint | null): boolean {
  return reference === null || position > reference;
}

/** Waits `milliseconds`; false when `signal` aborted first. */
function pause(milliseconds: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, milliseconds);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export class ProcessorSlot<Message> {
  readonly types: ReadonlySet<string>;
  readonly checkpointId: string;
  /** Events at or below it are not given to the processor in this run. */
  startAfter: bigint | null = null;
  /** A volatile processor gets its start position at its first start (and after a rebuild). */
  positioned = false;
  watermark = new Watermark(null);
  /** Every event at or below it is handled and flushed. */
  flushed: bigint | null = null;
  private stored: bigint | null = null;
  private scheduler: PartitionScheduler<SlotWork<Message>>;
  private readonly parkedPartitions = new Map<string, ParkedPartition>();
  private flushing: Promise<void> = Promise.resolve();
  private flushActive = false;
  private flushAgain = false;
  /** Events finished (handled, given up or parked) since the last flush. */
  private dirty = false;
  private sinceFlush = 0;
  /** Counts finished events; `flushedSeq` is the count the last completed flush covered. */
  private finishSeq = 0;
  private flushedSeq = 0;
  private readonly byPartition = new ScopeProgress();
  private readonly byTenant = new ScopeProgress();
  private signal: AbortSignal = new AbortController().signal;
  private eventsHandled = 0;
  private failedDeliveries = 0;
  private eventsGivenUp = 0;
  private eventsPassedWhileParked = 0;

  constructor(
    readonly processor: Processor<Message>,
    private readonly settings: SlotSettings,
    private readonly checkpoints: CheckpointStore,
    private readonly parkedStore: ParkedPartitionStore,
    private readonly callbacks: SlotCallbacks,
  ) {
    this.types = new Set([
      ...processor.eventTypes,
      ...(processor.erase !== undefined ? [ERASURE_EVENT_TYPE] : []),
    ]);
    this.checkpointId = checkpointIdOf(processor);
    this.scheduler = this.newScheduler();
  }

  get name(): string {
    return this.processor.name;
  }

  get isDurable(): boolean {
    return this.processor.durability === 'durable';
  }

  /** Events queued or running. */
  get load(): number {
    return this.scheduler.size;
  }

  isParked(partition: string): boolean {
    return this.parkedPartitions.has(partition);
  }

  parked(): readonly ParkedPartition[] {
    return [...this.parkedPartitions.values()];
  }

  /** Prepares a run: the start position, parked partitions of a durable processor, a fresh scheduler. */
  async prepare(headPosition: bigint | null, signal: AbortSignal): Promise<void> {
    if (this.isDurable) {
      const stored = await this.checkpoints.load(this.checkpointId);
      this.startAfter = stored === null || stored < 0n ? null : stored;
      this.stored = this.startAfter;
      this.parkedPartitions.clear();
      for (const record of await this.parkedStore.list(this.name)) {
        this.parkedPartitions.set(record.partition, record);
      }
    } else {
      this.startAfter = this.positioned ? this.flushed : headPosition;
    }
    this.positioned = true;
    this.flushed = this.startAfter;
    this.watermark = new Watermark(this.startAfter);
    this.sinceFlush = 0;
    this.byPartition.clear();
    this.byTenant.clear();
    this.signal = signal;
    this.scheduler = this.newScheduler();
  }

  /** Whether the processor reads this event at all in this run. */
  wants(event: RecordedEvent): boolean {
    return this.types.has(event.type) && isAfter(event.position, this.startAfter);
  }

  pass(position: bigint): void {
    this.watermark.pass(position);
    this.afterProgress();
  }

  passParked(position: bigint): void {
    this.eventsPassedWhileParked += 1;
    this.pass(position);
  }

  enqueue(partition: string, work: Omit<SlotWork<Message>, 'ticket' | 'scopes'>): void {
    const ticket = this.watermark.open(work.event.position);
    const scopes = {
      partition: this.byPartition.opened(partition, ticket.position),
      tenant: this.byTenant.opened(work.tenant, ticket.position),
    };
    this.scheduler.enqueue(partition, work.tenant, { ...work, ticket, scopes });
  }

  /**
   * Whether every event of the scope (a partition, or a tenant) at or below `position` is
   * handled and flushed — sooner than the checkpoint when other scopes hold it back (a read of
   * one session waits for that session only). Needs the runner to have read up to `position`.
   */
  hasReached(scope: { readonly partition: string } | { readonly tenant: string }, position: bigint): boolean {
    if (!isAfter(position, this.flushed)) return true;
    const seen = this.watermark.lastSeen;
    if (seen === null || position > seen) return false;
    return 'partition' in scope
      ? this.byPartition.reached(scope.partition, position, this.flushedSeq)
      : this.byTenant.reached(scope.tenant, position, this.flushedSeq);
  }

  /** Resolves at the next event finished (to wait for room). */
  whenChanged(): Promise<void> {
    return this.scheduler.whenChanged();
  }

  /** Starts nothing more; resolves once the running events are done. Queued ones stay unfinished. */
  async close(): Promise<void> {
    this.scheduler.close();
    await this.scheduler.whenIdle();
  }

  /** Flushes and stores the checkpoint (coalesced: one flush at a time, again if more finished). */
  flush(): Promise<void> {
    if (this.flushActive) {
      this.flushAgain = true;
      return this.flushing;
    }
    this.flushActive = true;
    this.flushing = this.flushLoop();
    return this.flushing;
  }

  /** Forgets the processor's state, position, parked partitions and counters (a rebuild). */
  async reset(resetCheckpoint: bigint): Promise<void> {
    if (this.isDurable) await this.checkpoints.store(this.checkpointId, resetCheckpoint);
    await this.parkedStore.release(this.name);
    this.parkedPartitions.clear();
    await this.processor.reset?.();
    this.positioned = false;
    this.flushed = null;
    this.eventsHandled = 0;
    this.failedDeliveries = 0;
    this.eventsGivenUp = 0;
    this.eventsPassedWhileParked = 0;
  }

  status(): ProcessorStatus {
    return {
      name: this.name,
      durability: this.processor.durability,
      startedAfter: this.startAfter,
      checkpoint: this.flushed,
      lastSeen: this.watermark.lastSeen,
      running: this.scheduler.runningCount,
      queued: this.scheduler.size - this.scheduler.runningCount,
      eventsHandled: this.eventsHandled,
      failedDeliveries: this.failedDeliveries,
      eventsGivenUp: this.eventsGivenUp,
      parkedPartitions: this.parkedPartitions.size,
      eventsPassedWhileParked: this.eventsPassedWhileParked,
    };
  }

  private newScheduler(): PartitionScheduler<SlotWork<Message>> {
    return new PartitionScheduler({
      concurrency: this.settings.concurrency,
      maxPerTenant: this.settings.maxPerTenant,
      run: (partition, work) => this.run(partition, work),
      onUnexpected: (error) => this.callbacks.onFailure(error),
    });
  }

  private async run(partition: string, work: SlotWork<Message>): Promise<void> {
    if (this.callbacks.isCatchingUp() && eventLoopSlice.isDue) await eventLoopSlice.yield();
    if (this.signal.aborted) return;
    if (work.content.kind === 'erased') {
      await this.erase(partition, work);
      return;
    }
    if (this.parkedPartitions.has(partition)) {
      this.eventsPassedWhileParked += 1;
      this.finish(work);
      return;
    }
    if (work.content.kind === 'invalid') {
      const reason = `the event cannot be read: ${work.content.detail}`;
      if (await this.giveUp(partition, work, reason, undefined)) this.finish(work);
      return;
    }
    const { message } = work.content;
    for (let delivery = 1; ; delivery += 1) {
      try {
        await this.processor.handle(message, { signal: this.signal, delivery });
        this.eventsHandled += 1;
        break;
      } catch (error) {
        if (this.signal.aborted) return;
        this.failedDeliveries += 1;
        const failure = this.failureOf(partition, work, delivery, error);
        this.callbacks.onDeliveryFailed?.(failure);
        if (delivery >= this.settings.maxDeliveries) {
          if (await this.giveUp(partition, work, describe(error), failure)) {
            this.finish(work);
          }
          return;
        }
        const delay = this.settings.retryDelayMs * 2 ** (delivery - 1);
        if (!(await pause(delay, this.signal))) return;
      }
    }
    this.finish(work);
  }

  /**
   * The last delivery failed (or the event cannot be read): parks the partition or skips the
   * event. False when the parked record could not be stored: the event then stays unfinished, so
   * the checkpoint cannot move past it.
   */
  private async giveUp(
    partition: string,
    work: SlotWork<Message>,
    reason: string,
    failure: DeliveryFailure | undefined,
  ): Promise<boolean> {
    if (this.processor.onFailure === 'skip') {
      this.eventsGivenUp += 1;
      this.callbacks.onGivenUp?.(failure ?? this.failureOf(partition, work, 0, new Error(reason)));
      return true;
    }
    const record: ParkedPartition = {
      processor: this.name,
      partition,
      tenant: work.tenant,
      eventId: work.event.id,
      eventType: work.event.type,
      position: work.event.position,
      reason,
      parkedAt: this.settings.clock().toISOString(),
    };
    this.parkedPartitions.set(partition, record);
    this.processor.forget?.(partition);
    for (const dropped of this.scheduler.dropQueued(partition)) {
      this.eventsPassedWhileParked += 1;
      this.finish(dropped);
    }
    try {
      if (this.isDurable) await this.parkedStore.park(record);
    } catch (error) {
      this.callbacks.onFailure(error);
      return false;
    }
    this.callbacks.onParked?.(record);
    return true;
  }

  /** The partition's stream was erased: release it if parked, then let the processor drop it. */
  private async erase(partition: string, work: SlotWork<Message>): Promise<void> {
    for (let delivery = 1; ; delivery += 1) {
      try {
        if (this.parkedPartitions.has(partition)) {
          if (this.isDurable) await this.parkedStore.release(this.name, partition);
          this.parkedPartitions.delete(partition);
        }
        await this.processor.erase?.(partition, { signal: this.signal, delivery });
        this.eventsHandled += 1;
        break;
      } catch (error) {
        if (this.signal.aborted) return;
        this.failedDeliveries += 1;
        const failure = this.failureOf(partition, work, delivery, error);
        this.callbacks.onDeliveryFailed?.(failure);
        if (delivery >= this.settings.maxDeliveries) {
          // Never parked: an erasure left undone must not hold the partition's later events back.
          this.eventsGivenUp += 1;
          this.callbacks.onGivenUp?.(failure);
          break;
        }
        const delay = this.settings.retryDelayMs * 2 ** (delivery - 1);
        if (!(await pause(delay, this.signal))) return;
      }
    }
    this.finish(work);
  }

  private failureOf(
    partition: string,
    work: SlotWork<Message>,
    delivery: number,
    error: unknown,
  ): DeliveryFailure {
    return {
      processor: this.name,
      partition,
      eventId: work.event.id,
      eventType: work.event.type,
      position: work.event.position,
      delivery,
      maxDeliveries: this.settings.maxDeliveries,
      error,
    };
  }

  private finish(work: SlotWork<Message>): void {
    this.watermark.finish(work.ticket);
    this.finishSeq += 1;
    this.byPartition.finished(work.scopes.partition, this.finishSeq);
    this.byTenant.finished(work.scopes.tenant, this.finishSeq);
    this.dirty = true;
    this.afterProgress();
  }

  /**
   * After an event finished or was passed over: handled work is flushed at once when live, else
   * every `checkpointInterval` events; with nothing to flush the position moves on in memory
   * (the checkpoint is stored every `checkpointInterval` events, and on stop).
   */
  private afterProgress(): void {
    this.sinceFlush += 1;
    const due = this.sinceFlush >= this.settings.checkpointInterval;
    if (this.dirty ? this.callbacks.isLive() || due : due) {
      this.flush().catch((error: unknown) => this.callbacks.onFailure(error));
      return;
    }
    this.movePastPassed();
  }

  /**
   * Flushes until nothing finished meanwhile; `flushActive` is cleared in the same turn as the
   * last check. Events passed over during the last flush (nothing to write for them) move the
   * position in memory at its end, as they would have with no flush under way: else a read
   * waiting for such an event would wait for the next event to come.
   */
  private async flushLoop(): Promise<void> {
    try {
      await this.flushOnce();
      while (this.flushAgain) await this.flushOnce();
    } finally {
      this.flushActive = false;
    }
    this.movePastPassed();
  }

  /** With nothing finished left to flush, the position moves to the watermark in memory. */
  private movePastPassed(): void {
    if (this.dirty || this.flushActive) return;
    const position = this.watermark.position;
    if (position !== null && isAfter(position, this.flushed)) this.flushedUpTo(position, this.finishSeq);
  }

  private async flushOnce(): Promise<void> {
    this.flushAgain = false;
    this.dirty = false;
    this.sinceFlush = 0;
    const target = this.watermark.position;
    const seq = this.finishSeq;
    await this.processor.flush?.();
    if (this.isDurable && target !== null && isAfter(target, this.stored)) {
      await this.checkpoints.store(this.checkpointId, target);
      this.stored = target;
    }
    this.flushedUpTo(target, seq);
  }

  /** Everything finished up to `seq` is flushed, and the checkpoint is `position`. */
  private flushedUpTo(position: bigint | null, seq: number): void {
    this.flushedSeq = Math.max(this.flushedSeq, seq);
    if (position !== null && isAfter(position, this.flushed)) this.flushed = position;
    this.byPartition.prune(this.flushed, this.flushedSeq);
    this.byTenant.prune(this.flushed, this.flushedSeq);
    this.callbacks.onFlushed();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
