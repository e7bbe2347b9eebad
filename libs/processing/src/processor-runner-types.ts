// The runner's options, reports and errors (see processor-runner.ts).
import type { CheckpointStore, EventStore } from '@strata/event-store';
import type { ParkedPartition, ParkedPartitionStore } from './parked-partitions';
import type { EventDecoder, Processor, ProcessorDurability } from './processor';

/** Stored by a rebuild; any checkpoint below zero means "from the start". */
export const RESET_CHECKPOINT = -1n;

export const DEFAULT_CONCURRENCY = 16;
export const DEFAULT_MAX_QUEUED = 1_000;
export const DEFAULT_MAX_DELIVERIES = 3;
export const DEFAULT_RETRY_DELAY_MS = 200;
export const DEFAULT_CHECKPOINT_INTERVAL = 500;
export const DEFAULT_PROGRESS_INTERVAL = 10_000;

/** Whose events a wait is for: one partition, or one tenant. */
export type WaitScope = { readonly partition: string } | { readonly tenant: string };

export interface RunnerProgress {
  /** Events read since this start. */
  readonly eventsRead: number;
  readonly position: bigint;
  /** The last event of the subscription's streams when the runner started (null: none). */
  readonly targetPosition: bigint | null;
}

/** One failed delivery of an event to a processor (it may be retried). */
export interface DeliveryFailure {
  readonly processor: string;
  readonly partition: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly position: bigint;
  readonly delivery: number;
  readonly maxDeliveries: number;
  readonly error: unknown;
}

export interface ProcessorRunnerOptions<Message> {
  /** Names the runner in messages (`read-models`, `sagas`). */
  readonly name: string;
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
  /** Where durable processors keep their parked partitions; in memory by default. */
  readonly parked?: ParkedPartitionStore;
  readonly processors: readonly Processor<Message>[];
  readonly decode: EventDecoder<Message>;
  /** The streams the subscription reads (all by default); its event types are the processors'. */
  readonly streamPrefixes?: readonly string[];
  /** Partitions handled at once, per processor. `DEFAULT_CONCURRENCY` by default. */
  readonly concurrency?: number;
  /** Slots one tenant may hold at once, per processor; `concurrency` by default. */
  readonly maxPerTenant?: number;
  /** Events queued or running per processor before the runner stops reading. 1,000 by default. */
  readonly maxQueued?: number;
  /** Deliveries of an event whose handling fails, the first included. 3 by default. */
  readonly maxDeliveries?: number;
  /** The pause before the second delivery, doubled before each later one. 200 ms by default. */
  readonly retryDelayMs?: number;
  /** While catching up, flush and store checkpoints every this many events (live: at once). */
  readonly checkpointInterval?: number;
  /** `onProgress` is called every this many events while catching up. */
  readonly progressInterval?: number;
  /** Start again after a failure (the store went away), after a pause that doubles. Off by default. */
  readonly restartAfterFailure?: boolean;
  /** The clock of parked records; the system clock by default. */
  readonly clock?: () => Date;
  readonly onProgress?: (progress: RunnerProgress) => void;
  readonly onDeliveryFailed?: (failure: DeliveryFailure) => void;
  /** An event given up after its last delivery (failure policy `skip`). */
  readonly onGivenUp?: (failure: DeliveryFailure) => void;
  readonly onParked?: (record: ParkedPartition) => void;
  /** Called when the runner fails as a whole (the store, a flush, a checkpoint). */
  readonly onError?: (error: unknown) => void;
}

export type RunnerState = 'idle' | 'catching_up' | 'live' | 'stopped' | 'failed';

export interface ProcessorStatus {
  readonly name: string;
  readonly durability: ProcessorDurability;
  /** The position the current run started after (null: the start of the log). */
  readonly startedAfter: bigint | null;
  /** Every event at or below it is handled and flushed (and stored, when durable). */
  readonly checkpoint: bigint | null;
  /** The last event given to it, handled or not. */
  readonly lastSeen: bigint | null;
  readonly running: number;
  readonly queued: number;
  /** Events handled since the runner was created or the processor rebuilt. */
  readonly eventsHandled: number;
  readonly failedDeliveries: number;
  readonly eventsGivenUp: number;
  readonly parkedPartitions: number;
  /** Events passed over because their partition is parked. */
  readonly eventsPassedWhileParked: number;
}

export interface ProcessorRunnerStatus {
  readonly name: string;
  readonly state: RunnerState;
  /** The lowest checkpoint of its processors. */
  readonly position: bigint | null;
  /** Events read since the current run started. */
  readonly eventsRead: number;
  readonly processors: readonly ProcessorStatus[];
  readonly failure: string | null;
}

export interface RunnerLag {
  /** The last event the runner has read. */
  readonly lastSeenPosition: bigint | null;
  /** The lowest checkpoint of its processors. */
  readonly appliedPosition: bigint | null;
  /** The last event of the subscription's streams in the store. */
  readonly headPosition: bigint | null;
  /** headPosition − appliedPosition (0 when caught up); a count of events on SQLite and in memory. */
  readonly positionsBehind: bigint;
}

export interface RebuildReport {
  readonly processors: readonly string[];
  readonly eventsRead: number;
  readonly eventsHandled: number;
  readonly parkedPartitions: number;
  readonly position: bigint | null;
}

export class UnknownProcessorError extends Error {
  override readonly name = 'UnknownProcessorError';

  constructor(
    readonly processorName: string,
    readonly known: readonly string[],
  ) {
    super(`no processor is called '${processorName}' (known: ${known.join(', ')})`);
  }
}

export class ProcessorRunnerStoppedError extends Error {
  override readonly name = 'ProcessorRunnerStoppedError';

  constructor(runnerName: string) {
    super(`the ${runnerName} runner stopped`);
  }
}
