// The processor port of the one durable-work runner (DESIGN.md decision 5): a named consumer of
// store events with the event types it reads and a `handle` that the runner calls once per event,
// one event of a partition (a stream) at a time, different partitions concurrently.
import type { RecordedEvent } from '@strata/event-store';

/**
 * `durable`: its checkpoint is stored, and a restart resumes after it. `volatile`: its state
 * lives in memory; the first start of a process begins at the store's head and nothing is stored.
 */
export type ProcessorDurability = 'durable' | 'volatile';

/**
 * What happens to an event whose `handle` still fails after the last delivery:
 * - `park`: the partition is set aside for this processor — its later events are passed over
 *   until it is released (a rebuild releases it), so the processor never applies a stream's
 *   events out of order (read models);
 * - `skip`: the event is given up and the partition goes on (work whose every event stands alone).
 */
export type FailurePolicy = 'park' | 'skip';

export interface HandleContext {
  /** Aborted when the runner stops; a handler may leave its work for the next start. */
  readonly signal: AbortSignal;
  /** 1 for the first delivery of the event in this run, 2 for the first retry, … */
  readonly delivery: number;
}

export interface Processor<Message> {
  /** Unique in its runner; names its checkpoint unless `checkpointId` is given. */
  readonly name: string;
  /** The key of its stored checkpoint (`processors/<name>` by default). */
  readonly checkpointId?: string;
  readonly durability: ProcessorDurability;
  /** The store event types it reads; it is given no other. */
  readonly eventTypes: readonly string[];
  readonly onFailure: FailurePolicy;
  /** A cheap pre-check: false passes the event over as if it were of another type. */
  accepts?(message: Message): boolean;
  /**
   * Handles one event. Contract: idempotent — the runner delivers at least once (again after a
   * failure, and after a restart from the stored checkpoint), so a repeat must change nothing.
   * A throw is retried after a pause; see `FailurePolicy` for the last one.
   */
  handle(message: Message, context: HandleContext): Promise<void>;
  /** One of its partitions was parked: it may drop what it holds of it. */
  forget?(partition: string): void;
  /**
   * The partition's stream was erased: drop everything held of it, durable state included. Called
   * in the partition's order (after its earlier events), once per erasure record the runner reads
   * (again after a restart, so it must be idempotent); a parked partition is released first. With
   * it, the runner reads the store's erasure log (`includeErasures`).
   */
  erase?(partition: string, context: HandleContext): Promise<void>;
  /** Makes what was handled so far durable and visible; called before its checkpoint is stored. */
  flush?(): Promise<void>;
  /** Forgets everything (the first step of a rebuild). */
  reset?(): Promise<void>;
}

/**
 * How the runner reads a recorded event, once for all its processors: the message they get,
 * the partition that orders it (the stream) and the tenant that shares the slots fairly.
 * `pass` means no processor concerns itself with the event; `invalid` events cannot be read
 * and are dealt with by each interested processor's failure policy.
 */
export type DecodedEvent<Message> =
  | {
      readonly kind: 'message';
      readonly message: Message;
      readonly partition: string;
      readonly tenant: string;
    }
  | { readonly kind: 'pass' }
  /** An erasure record: every processor with `erase` drops the partition. */
  | { readonly kind: 'erased'; readonly partition: string; readonly tenant: string }
  | {
      readonly kind: 'invalid';
      readonly partition: string;
      readonly tenant: string;
      readonly detail: string;
    };

export type EventDecoder<Message> = (recorded: RecordedEvent) => DecodedEvent<Message>;

/** The default checkpoint key of a processor. */
export function checkpointIdOf(processor: Pick<Processor<unknown>, 'name' | 'checkpointId'>): string {
  return processor.checkpointId ?? `processors/${processor.name}`;
}
