// The catch-up subscription shared by the in-process adapters: history after the start
// position, then one `caught_up`, then live events as the notifier reports appends.
import type {
  EventFilter,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
  SubscriptionMessage,
} from '../port';
import type { AppendNotifier, PendingWait } from './append-notifier';

/** What a subscription needs from its store. */
export interface SubscriptionSource {
  readonly notifier: AppendNotifier;
  /**
   * The last global position. Contract: every event at or below it is already readable
   * (positions are allocated in commit order).
   */
  head(): Promise<bigint | null>;
  /** Matching events with `after < position <= upTo` in position order, at most `limit`. */
  readRange(
    after: bigint | null,
    upTo: bigint,
    limit: number,
    filter: EventFilter | undefined,
  ): Promise<readonly RecordedEvent[]>;
}

export class CatchUpSubscription implements Subscription {
  private closed = false;
  private started = false;
  private pendingWait: PendingWait | undefined;

  constructor(
    private readonly source: SubscriptionSource,
    private readonly options: SubscribeOptions,
    private readonly batchSize: number,
    private readonly onClosed: (subscription: CatchUpSubscription) => void,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionMessage> {
    if (this.started) throw new Error('A subscription can be iterated only once');
    this.started = true;
    return this.messages();
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.pendingWait?.cancel();
      this.onClosed(this);
    }
    return Promise.resolve();
  }

  private async *messages(): AsyncGenerator<SubscriptionMessage> {
    try {
      const historyHead = await this.source.head();
      const from = this.options.fromPosition ?? 'start';
      let cursor: bigint | null = from === 'start' ? null : from === 'end' ? historyHead : from;
      if (historyHead !== null) {
        for await (const event of this.drain(cursor, historyHead)) {
          cursor = event.position;
          yield { kind: 'event', event };
        }
        cursor = maxPosition(cursor, historyHead);
      }
      if (this.closed) return;
      yield { kind: 'caught_up', position: historyHead };
      while (!this.closed) {
        const version = this.source.notifier.version;
        const head = await this.source.head();
        if (head !== null && (cursor === null || head > cursor)) {
          for await (const event of this.drain(cursor, head)) {
            cursor = event.position;
            yield { kind: 'event', event };
          }
          cursor = maxPosition(cursor, head);
          continue;
        }
        if (this.closed) return;
        this.pendingWait = this.source.notifier.waitForChange(version);
        await this.pendingWait.done;
        this.pendingWait = undefined;
      }
    } finally {
      await this.close();
    }
  }

  /** Every matching event in (after, upTo], read in batches; stops early once closed. */
  private async *drain(after: bigint | null, upTo: bigint): AsyncGenerator<RecordedEvent> {
    let cursor = after;
    while (!this.closed) {
      const batch = await this.source.readRange(cursor, upTo, this.batchSize, this.options.filter);
      for (const event of batch) {
        if (this.closed) return;
        cursor = event.position;
        yield event;
      }
      if (batch.length < this.batchSize) return;
    }
  }
}

function maxPosition(cursor: bigint | null, head: bigint): bigint {
  return cursor === null || head > cursor ? head : cursor;
}
