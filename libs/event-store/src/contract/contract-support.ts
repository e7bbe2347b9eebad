// Helpers of the event-store contract suite: per-test stream names (so the suite also runs
// against a shared, non-empty server), event builders, and a reader that pulls subscription
// messages with a guard against waiting forever.
import { randomUUID } from 'node:crypto';
import { newEventId } from '../ids/uuidv7';
import {
  ConcurrencyError,
  DuplicateEventIdError,
  type EventStore,
  type EventToAppend,
  type RecordedEvent,
  type Subscription,
  type SubscriptionMessage,
} from '../port';

/** Differences an adapter declares; each defaults to the behaviour of the SQLite adapter. */
export interface EventStoreContractFeatures {
  /**
   * An event id recorded anywhere is never recorded again, even at another revision or in
   * another stream (true for SQLite and memory). EventStoreDB only recognises retries of the
   * same append, so its adapter may declare false.
   */
  readonly uniqueEventIds?: boolean;
  /** Erased events leave `readAll` and subscriptions at once (EventStoreDB: after a scavenge). */
  readonly erasureRemovesFromReadAll?: boolean;
  /** `reviveErased` writes an erased stream again (SQLite, memory); EventStoreDB's tombstone is final. */
  readonly revivesErasedStreams?: boolean;
  /** Writers racing in the concurrency tests. 8 by default. */
  readonly concurrentWriters?: number;
  /** Events each racing writer appends. 10 by default. */
  readonly eventsPerWriter?: number;
  /** How long a test waits for an expected subscription message. 5,000 ms by default. */
  readonly messageTimeoutMs?: number;
}

export interface ContractStore {
  readonly store: EventStore;
  readonly cleanup: () => Promise<void>;
}

/** Page limits a factory gives the store it opens (its defaults where not given). */
export interface ContractStoreOptions {
  /** Events per page of reads and subscriptions. */
  readonly pageSize?: number;
  /** The byte limit of those pages. */
  readonly pageBytes?: number;
}

/** Opens a fresh store; it must honour `options`, which the paging contract relies on. */
export type ContractStoreFactory = (options?: ContractStoreOptions) => Promise<ContractStore>;

/** What each group of contract tests receives. */
export interface ContractContext {
  /** The store of the running test (a fresh one per test). */
  readonly store: () => EventStore;
  /** Opens another store with the given page limits; the test cleans it up. */
  readonly openStore: (options: ContractStoreOptions) => Promise<ContractStore>;
  readonly features: Required<EventStoreContractFeatures>;
}

/** Stream names private to one test, and the filter that selects them. */
export interface TestScope {
  readonly prefix: string;
  stream(name: string): string;
}

export function newScope(): TestScope {
  const prefix = `contract${randomUUID().replaceAll('-', '').slice(0, 12)}-`;
  return { prefix, stream: (name) => `${prefix}${name}` };
}

export function anEvent(
  type = 'thing-happened',
  data: unknown = { value: 1 },
  metadata?: Record<string, unknown>,
): EventToAppend {
  return { id: newEventId(), type, data, ...(metadata === undefined ? {} : { metadata }) };
}

export function someEvents(count: number, type = 'thing-happened'): EventToAppend[] {
  return Array.from({ length: count }, (_, index) => anEvent(type, { index }));
}

export async function collect<Item>(iterable: AsyncIterable<Item>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** Every event of a stream, or none when reading it throws (an erased stream may do either). */
export async function readStreamOrNothing(
  store: EventStore,
  streamId: string,
): Promise<readonly RecordedEvent[]> {
  try {
    return await collect(store.readStream(streamId));
  } catch {
    return [];
  }
}

/** A refusal because of an id already recorded: either typed error the port allows. */
export function isIdConflict(error: unknown): boolean {
  return error instanceof ConcurrencyError || error instanceof DuplicateEventIdError;
}

/** The error an operation rejected with (fails when it resolved). */
export async function rejectionOf(operation: Promise<unknown>): Promise<unknown> {
  try {
    await operation;
  } catch (error) {
    return error;
  }
  throw new Error('expected the operation to be rejected, but it succeeded');
}

/** The messages a contract reads: events and `caught_up` (a store's checkpoints are checked apart). */
export type ContractMessage = Exclude<SubscriptionMessage, { readonly kind: 'checkpoint' }>;

/**
 * Pulls messages from a subscription one at a time, failing instead of hanging. Checkpoints are
 * not returned: each is checked to pass the last event delivered and to come before the next.
 */
export class SubscriptionReader {
  private readonly iterator: AsyncIterator<SubscriptionMessage>;
  private lastEventPosition: bigint | undefined;
  private lastCheckpoint: bigint | undefined;
  /** Checkpoints the subscription delivered so far. */
  checkpoints = 0;

  constructor(
    readonly subscription: Subscription,
    private readonly timeoutMs: number,
  ) {
    this.iterator = subscription[Symbol.asyncIterator]();
  }

  /** The next event or `caught_up`, or `'ended'` when iteration finished. */
  async next(): Promise<ContractMessage | 'ended'> {
    for (;;) {
      const message = await this.nextMessage();
      if (message === 'ended' || message.kind !== 'checkpoint') {
        if (message !== 'ended' && message.kind === 'event') this.sawEvent(message.event.position);
        return message;
      }
      this.sawCheckpoint(message.position);
    }
  }

  private sawEvent(position: bigint): void {
    if (this.lastCheckpoint !== undefined && position <= this.lastCheckpoint) {
      throw new Error(`an event at ${position} came after a checkpoint at ${this.lastCheckpoint}`);
    }
    this.lastEventPosition = position;
  }

  private sawCheckpoint(position: bigint): void {
    if (this.lastEventPosition !== undefined && position <= this.lastEventPosition) {
      throw new Error(`a checkpoint at ${position} does not pass the event at ${this.lastEventPosition}`);
    }
    if (this.lastCheckpoint !== undefined && position <= this.lastCheckpoint) {
      throw new Error(`a checkpoint at ${position} does not pass the one at ${this.lastCheckpoint}`);
    }
    this.lastCheckpoint = position;
    this.checkpoints += 1;
  }

  private async nextMessage(): Promise<SubscriptionMessage | 'ended'> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no subscription message within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      const result = await Promise.race([this.iterator.next(), timeout]);
      return result.done === true ? 'ended' : result.value;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Messages up to and including the first `caught_up`. */
  async untilCaughtUp(): Promise<ContractMessage[]> {
    const messages: ContractMessage[] = [];
    for (;;) {
      const message = await this.next();
      if (message === 'ended') throw new Error('subscription ended before caught_up');
      messages.push(message);
      if (message.kind === 'caught_up') return messages;
    }
  }

  /** The next `count` events (fails on a second `caught_up` or an end). */
  async events(count: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    while (events.length < count) {
      const message = await this.next();
      if (message === 'ended')
        throw new Error(`subscription ended after ${events.length} of ${count} events`);
      if (message.kind === 'event') events.push(message.event);
    }
    return events;
  }

  async close(): Promise<void> {
    await this.subscription.close();
  }
}

export function eventsOf(messages: readonly SubscriptionMessage[]): RecordedEvent[] {
  return messages.flatMap((message) => (message.kind === 'event' ? [message.event] : []));
}

export function idsOf(events: readonly { readonly id: string }[]): string[] {
  return events.map((event) => event.id);
}
