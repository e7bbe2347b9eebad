// The catch-up subscription shared by the in-process adapters: history after the start
// position, then one `caught_up`, then live events as the notifier reports appends. It reads a
// page only when the subscriber has taken every event of the previous one, after passing the
// subscriber's gate, and lets go of each event as it hands it out. Reading the history gives the
// event loop its turn once per work slice (shared/work-slice.ts), and so does a long live burst,
// so neither a long catch-up nor a large import holds it for long.
import type {
  EventFilter,
  PageLimits,
  ReadGate,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
  SubscriptionMessage,
} from '../port';
import { WorkSlice, eventLoopSlice } from '../shared/work-slice';
import type { AppendNotifier, PendingWait } from './append-notifier';

/**
 * One page of a range; `exhausted` when the range holds no matching event after it. The array
 * belongs to the subscription, which empties it as it hands the events out.
 */
export interface RangePage {
  readonly events: RecordedEvent[];
  readonly exhausted: boolean;
}

/** What a subscription needs from its store. */
export interface SubscriptionSource {
  readonly notifier: AppendNotifier;
  /**
   * The last global position. Contract: every event at or below it is already readable
   * (positions are allocated in commit order).
   */
  head(): Promise<bigint | null>;
  /** Matching events with `after < position <= upTo` in position order, one page of `limits`. */
  readRange(
    after: bigint | null,
    upTo: bigint,
    limits: PageLimits,
    filter: EventFilter | undefined,
  ): Promise<RangePage>;
}

const openGate: ReadGate = { enter: () => Promise.resolve(), leave: () => undefined };

export class CatchUpSubscription implements Subscription {
  private closed = false;
  private started = false;
  private pendingWait: PendingWait | undefined;
  private insideGate = false;
  private readonly gate: ReadGate;

  constructor(
    private readonly source: SubscriptionSource,
    private readonly options: SubscribeOptions,
    private readonly limits: PageLimits,
    private readonly onClosed: (subscription: CatchUpSubscription) => void,
  ) {
    this.gate = options.gate ?? openGate;
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionMessage> {
    if (this.started) throw new Error('A subscription can be iterated only once');
    this.started = true;
    return this.messages();
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.pendingWait?.cancel();
      this.leaveGate();
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
        for await (const event of this.drain(cursor, historyHead, 'sliced')) {
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
          for await (const event of this.drain(cursor, head, 'burst')) {
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

  /**
   * Every matching event in (after, upTo], a page at a time; stops early once closed. The page
   * is emptied as it is handed out, so an event is held only until the subscriber has it. The
   * history is `sliced`: it gives the event loop its turn once per work slice shared with the
   * other loops catching up. A live burst is a `burst`: handed out without a pause while it
   * lasts less than one slice, so that a read waiting for a few new events waits for nothing
   * else, and given its turns like the history once it lasts longer (an import of thousands of
   * events, whose reading and applying would otherwise hold every other request).
   */
  private async *drain(
    after: bigint | null,
    upTo: bigint,
    pace: 'sliced' | 'burst',
  ): AsyncGenerator<RecordedEvent> {
    const slice = pace === 'sliced' ? eventLoopSlice : new WorkSlice();
    let cursor = after;
    while (!this.closed) {
      await this.gate.enter();
      if (this.closed) {
        this.gate.leave();
        return;
      }
      this.insideGate = true;
      const { events, exhausted } = await this.source.readRange(
        cursor,
        upTo,
        this.limits,
        this.options.filter,
      );
      try {
        for (let event = events.shift(); event !== undefined; event = events.shift()) {
          if (slice.isDue) await slice.yield();
          if (this.closed) return;
          cursor = event.position;
          yield event;
        }
      } finally {
        this.leaveGate();
      }
      if (exhausted) return;
    }
  }

  private leaveGate(): void {
    if (!this.insideGate) return;
    this.insideGate = false;
    this.gate.leave();
  }
}

function maxPosition(cursor: bigint | null, head: bigint): bigint {
  return cursor === null || head > cursor ? head : cursor;
}
