// One processor inside the runner: the partition scheduler that runs its events, their
// deliveries with retries, its parked partitions and its counters; its progress and flushing
// are processor-progress.ts. The runner reads and dispatches; the slot does everything per
// processor.
// While the runner catches up, applying events gives the event loop its turn once per work
// slice, never per event; live events are applied without yielding, as a read may wait for them.
import {
  ERASURE_EVENT_TYPE,
  eventLoopSlice,
  type CheckpointStore,
  type RecordedEvent,
} from '@strata/event-store';
import type { ParkedPartition, ParkedPartitionStore } from './parked-partitions';
import { deliver, type DeliveryPolicy } from './deliveries';
import { PartitionScheduler } from './partition-scheduler';
import { isAfter } from './positions';
import { checkpointIdOf, type Processor } from './processor';
import { ProcessorProgress, type OpenedEvent } from './processor-progress';
import type { DeliveryFailure, ProcessorStatus, WaitScope } from './processor-runner-types';

/** One event queued for a processor. */
export interface SlotWork<Message> extends OpenedEvent {
  readonly event: RecordedEvent;
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

export class ProcessorSlot<Message> {
  readonly types: ReadonlySet<string>;
  readonly checkpointId: string;
  /** Events at or below it are not given to the processor in this run. */
  startAfter: bigint | null = null;
  /** A volatile processor gets its start position at its first start (and after a rebuild). */
  positioned = false;
  private readonly progress: ProcessorProgress;
  private scheduler: PartitionScheduler<SlotWork<Message>>;
  private readonly parkedPartitions = new Map<string, ParkedPartition>();
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
    this.progress = new ProcessorProgress(
      {
        flushProcessor: () => processor.flush?.(),
        storeCheckpoint: this.isDurable
          ? (position) => checkpoints.store(this.checkpointId, position)
          : undefined,
      },
      settings.checkpointInterval,
      callbacks,
    );
    this.scheduler = this.newScheduler();
  }

  /** Every event at or below it is handled and flushed. */
  get flushed(): bigint | null {
    return this.progress.flushed;
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
      this.parkedPartitions.clear();
      for (const record of await this.parkedStore.list(this.name)) {
        this.parkedPartitions.set(record.partition, record);
      }
    } else {
      this.startAfter = this.positioned ? this.flushed : headPosition;
    }
    this.positioned = true;
    this.progress.startAfter(this.startAfter);
    this.signal = signal;
    this.scheduler = this.newScheduler();
  }

  /** Whether the processor reads this event at all in this run. */
  wants(event: RecordedEvent): boolean {
    return this.types.has(event.type) && isAfter(event.position, this.startAfter);
  }

  pass(position: bigint): void {
    this.progress.pass(position);
  }

  /** Passes over events up to a checkpoint of the store, and stores the checkpoint now. */
  passCheckpoint(position: bigint): void {
    this.progress.passCheckpoint(position);
  }

  passParked(position: bigint): void {
    this.eventsPassedWhileParked += 1;
    this.pass(position);
  }

  enqueue(partition: string, work: Omit<SlotWork<Message>, 'ticket' | 'scopes'>): void {
    const opened = this.progress.open(partition, work.tenant, work.event.position);
    this.scheduler.enqueue(partition, work.tenant, { ...work, ...opened });
  }

  /** Whether every event of the scope at or below `position` is handled and flushed (see ProcessorProgress). */
  hasReached(scope: WaitScope, position: bigint): boolean {
    return this.progress.hasReached(scope, position);
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
    return this.progress.flush();
  }

  /** Forgets the processor's state, position, parked partitions and counters (a rebuild). */
  async reset(resetCheckpoint: bigint): Promise<void> {
    if (this.isDurable) await this.checkpoints.store(this.checkpointId, resetCheckpoint);
    await this.parkedStore.release(this.name);
    this.parkedPartitions.clear();
    await this.processor.reset?.();
    this.positioned = false;
    this.progress.forget();
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
      checkpoint: this.progress.flushed,
      lastSeen: this.progress.lastSeen,
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
    const outcome = await deliver(
      (delivery) => this.processor.handle(message, { signal: this.signal, delivery }),
      this.deliveryPolicy(partition, work),
    );
    if (outcome.kind === 'aborted') return;
    if (outcome.kind === 'handled') this.eventsHandled += 1;
    else if (!(await this.giveUp(partition, work, describe(outcome.error), outcome.failure))) return;
    this.finish(work);
  }

  /** How an event is retried: each failed try counted and reported. */
  private deliveryPolicy(partition: string, work: SlotWork<Message>): DeliveryPolicy<DeliveryFailure> {
    return {
      maxDeliveries: this.settings.maxDeliveries,
      retryDelayMs: this.settings.retryDelayMs,
      signal: this.signal,
      onFailedTry: (delivery, error) => {
        this.failedDeliveries += 1;
        const failure = this.failureOf(partition, work, delivery, error);
        this.callbacks.onDeliveryFailed?.(failure);
        return failure;
      },
    };
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
    const outcome = await deliver(
      async (delivery) => {
        if (this.parkedPartitions.has(partition)) {
          if (this.isDurable) await this.parkedStore.release(this.name, partition);
          this.parkedPartitions.delete(partition);
        }
        await this.processor.erase?.(partition, { signal: this.signal, delivery });
      },
      this.deliveryPolicy(partition, work),
    );
    if (outcome.kind === 'aborted') return;
    if (outcome.kind === 'handled') {
      this.eventsHandled += 1;
    } else {
      // Never parked: an erasure left undone must not hold the partition's later events back.
      this.eventsGivenUp += 1;
      this.callbacks.onGivenUp?.(outcome.failure);
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
    this.progress.finish(work);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
