// A port subscription over an EventStoreDB catch-up subscription to `$all`. The client's
// subscription is a Node stream that emits `caughtUp` as a separate event, possibly while events
// received before it still sit in the stream's buffer; `caught_up` is therefore delivered after
// exactly those buffered events, so it always follows the history it marks. Events the port must
// not see (see esdb-mapping.ts), or that the subscriber's filter refuses, are dropped here as
// they are taken from the client stream, after the server-side filter did the coarse work.
//
// The server's checkpoints of a filtered subscription (the client calls back, also ahead of the
// events still buffered) are delivered the same way, after the events received before them, as
// `checkpoint` messages, when they pass the last event delivered.
//
// The client stream is read only when the subscriber asks for a message and nothing is buffered:
// then, past the subscriber's gate, one page (its count and byte limits) is taken from it. Until
// then the client stream holds what it already received (its small buffer) and gRPC flow control
// holds the server back.
import type { AllStreamResolvedEvent, AllStreamSubscription } from '@eventstore/db-client';
import type { PageLimits, ReadGate, RecordedEvent, Subscription, SubscriptionMessage } from '../port';
import { PageFill } from '../shared/page-limits';
import { resolvedEventBytes } from './esdb-reads';

/** The opened client subscription and the step that maps (or drops) each event it delivers. */
export interface OpenedEsdbSubscription {
  readonly source: AllStreamSubscription;
  readonly accept: (resolved: AllStreamResolvedEvent) => RecordedEvent | undefined;
}

const openGate: ReadGate = { enter: () => Promise.resolve(), leave: () => undefined };

export class EsdbSubscription implements Subscription {
  private readonly buffered: SubscriptionMessage[] = [];
  private waiting:
    | { resolve: (result: IteratorResult<SubscriptionMessage>) => void; reject: (error: unknown) => void }
    | undefined;
  private source: AllStreamSubscription | undefined;
  private accept: OpenedEsdbSubscription['accept'] = () => undefined;
  private failure: { readonly error: unknown } | undefined;
  private ended = false;
  private pulling = false;
  private insideGate = false;
  private received = 0;
  private caughtUpAfter: number | undefined;
  private caughtUpDelivered = false;
  /** Server checkpoints not delivered yet, each after the number of events received before it. */
  private readonly checkpoints: { readonly after: number; readonly position: bigint }[] = [];
  /** The position of the last event or checkpoint delivered. */
  private lastDelivered: bigint | null;

  /**
   * @param open opens the client subscription (after any preparation it needs), which calls
   *   `onCheckpoint` with each checkpoint position the server reports
   * @param lastPosition the position to report with `caught_up` when no event came before it
   * @param onClosed called once when the subscription ends, for the store's bookkeeping
   * @param limits how much one page taken from the client stream may hold
   * @param gate the subscriber's gate, passed before each page
   */
  constructor(
    open: (onCheckpoint: (position: bigint) => void) => Promise<OpenedEsdbSubscription>,
    private lastPosition: bigint | null,
    private readonly onClosed: (subscription: EsdbSubscription) => void,
    private readonly limits: PageLimits,
    private readonly gate: ReadGate = openGate,
  ) {
    this.lastDelivered = lastPosition;
    void this.start(open);
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionMessage> {
    return {
      next: () => this.next(),
      return: async () => {
        await this.close();
        return { done: true, value: undefined };
      },
    };
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.finish();
    this.waiting?.resolve({ done: true, value: undefined });
    this.waiting = undefined;
    await this.source?.unsubscribe();
  }

  private async start(
    open: (onCheckpoint: (position: bigint) => void) => Promise<OpenedEsdbSubscription>,
  ): Promise<void> {
    try {
      const opened = await open((position) => this.onCheckpoint(position));
      opened.source.on('error', (error: unknown) => this.fail(error));
      if (this.ended) {
        await opened.source.unsubscribe();
        return;
      }
      this.source = opened.source;
      this.accept = opened.accept;
      opened.source.on('readable', () => void this.pull());
      opened.source.on('caughtUp', () => this.onCaughtUp());
      opened.source.on('end', () => this.fail(new Error('The server ended the subscription')));
      void this.pull();
    } catch (error) {
      this.fail(error);
    }
  }

  private onCaughtUp(): void {
    if (this.ended || this.caughtUpAfter !== undefined || this.source === undefined) return;
    this.caughtUpAfter = this.received + this.source.readableLength;
    this.deliverMarksDue();
  }

  private onCheckpoint(position: bigint): void {
    if (this.ended) return;
    this.checkpoints.push({ after: this.received + (this.source?.readableLength ?? 0), position });
    this.deliverMarksDue();
  }

  /** Delivers the checkpoints and the `caught_up` whose events before them are all taken. */
  private deliverMarksDue(): void {
    for (let next = this.checkpoints[0]; next !== undefined && next.after <= this.received;) {
      this.checkpoints.shift();
      if (this.lastDelivered === null || next.position > this.lastDelivered) {
        this.lastDelivered = next.position;
        this.deliver({ kind: 'checkpoint', position: next.position });
      }
      next = this.checkpoints[0];
    }
    if (this.caughtUpDelivered || this.caughtUpAfter === undefined || this.received < this.caughtUpAfter)
      return;
    this.caughtUpDelivered = true;
    this.deliver({ kind: 'caught_up', position: this.lastPosition });
  }

  private deliver(message: SubscriptionMessage): void {
    if (this.waiting !== undefined) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ done: false, value: message });
      return;
    }
    this.buffered.push(message);
  }

  private next(): Promise<IteratorResult<SubscriptionMessage>> {
    const message = this.buffered.shift();
    if (message !== undefined) return Promise.resolve({ done: false, value: message });
    if (this.failure !== undefined) {
      const { error } = this.failure;
      this.failure = undefined;
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    const waited = new Promise<IteratorResult<SubscriptionMessage>>(
      (resolve, reject) => (this.waiting = { resolve, reject }),
    );
    void this.pull();
    return waited;
  }

  /**
   * While the subscriber waits and nothing is buffered: lets go of the gate (the page before was
   * taken), and, when the client stream has something, passes the gate again and takes a page.
   */
  private async pull(): Promise<void> {
    if (this.pulling) return;
    this.pulling = true;
    try {
      while (!this.ended && this.waiting !== undefined && this.buffered.length === 0) {
        this.leaveGate();
        const source = this.source;
        if (source === undefined) return;
        if (source.readableLength === 0) {
          // Nothing received yet: `read(0)` asks the stream for more, and 'readable' calls back.
          source.read(0);
          if (source.readableLength === 0) return;
        }
        await this.gate.enter();
        if (this.ended) {
          this.gate.leave();
          return;
        }
        this.insideGate = true;
        this.takePage(source);
      }
    } catch (error) {
      this.fail(error);
    } finally {
      this.pulling = false;
    }
  }

  /** Takes events from the client stream until the page is full or the stream has no more. */
  private takePage(source: AllStreamSubscription): void {
    const fill = new PageFill(this.limits);
    for (;;) {
      const resolved = source.read() as AllStreamResolvedEvent | null;
      if (resolved === null) return;
      this.received += 1;
      const event = this.accept(resolved);
      let full = false;
      if (event !== undefined) {
        this.lastPosition = event.position;
        this.lastDelivered = event.position;
        this.deliver({ kind: 'event', event });
        full = fill.add(resolvedEventBytes(resolved));
      }
      this.deliverMarksDue();
      if (full || this.ended) return;
    }
  }

  private leaveGate(): void {
    if (!this.insideGate) return;
    this.insideGate = false;
    this.gate.leave();
  }

  private fail(error: unknown): void {
    if (this.ended) return;
    this.finish();
    if (this.waiting !== undefined) {
      this.waiting.reject(error);
      this.waiting = undefined;
    } else {
      this.failure = { error };
    }
    void this.source?.unsubscribe();
  }

  private finish(): void {
    this.ended = true;
    this.buffered.length = 0;
    this.checkpoints.length = 0;
    this.leaveGate();
    this.onClosed(this);
  }
}
