// A port subscription over an EventStoreDB catch-up subscription to `$all`. The client's
// subscription is a Node stream that emits `caughtUp` as a separate event, possibly while events
// received before it still sit in the stream's buffer; `caught_up` is therefore delivered after
// exactly those buffered events, so it always follows the history it marks. Events the port must
// not see (see esdb-mapping.ts) are dropped here, after the server-side filter did the coarse work.
// A slow consumer pauses the client stream, which lets gRPC flow control hold the server back.
import type { AllStreamResolvedEvent, AllStreamSubscription } from '@eventstore/db-client';
import type { RecordedEvent, Subscription, SubscriptionMessage } from '../port';

/** The opened client subscription and the step that maps (or drops) each event it delivers. */
export interface OpenedEsdbSubscription {
  readonly source: AllStreamSubscription;
  readonly accept: (resolved: AllStreamResolvedEvent) => RecordedEvent | undefined;
}

/** When to pause the client stream for a slow consumer, and when to resume it. */
export interface BufferLimits {
  readonly pauseAbove: number;
  readonly resumeBelow: number;
}

const DEFAULT_LIMITS: BufferLimits = { pauseAbove: 1024, resumeBelow: 256 };

export class EsdbSubscription implements Subscription {
  private readonly buffered: SubscriptionMessage[] = [];
  private waiting:
    | { resolve: (result: IteratorResult<SubscriptionMessage>) => void; reject: (error: unknown) => void }
    | undefined;
  private source: AllStreamSubscription | undefined;
  private accept: OpenedEsdbSubscription['accept'] = () => undefined;
  private failure: { readonly error: unknown } | undefined;
  private ended = false;
  private received = 0;
  private caughtUpAfter: number | undefined;
  private caughtUpDelivered = false;

  /**
   * @param open opens the client subscription (after any preparation it needs)
   * @param lastPosition the position to report with `caught_up` when no event came before it
   * @param onClosed called once when the subscription ends, for the store's bookkeeping
   */
  constructor(
    open: () => Promise<OpenedEsdbSubscription>,
    private lastPosition: bigint | null,
    private readonly onClosed: (subscription: EsdbSubscription) => void,
    private readonly limits: BufferLimits = DEFAULT_LIMITS,
  ) {
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

  private async start(open: () => Promise<OpenedEsdbSubscription>): Promise<void> {
    try {
      const opened = await open();
      opened.source.on('error', (error: unknown) => this.fail(error));
      if (this.ended) {
        await opened.source.unsubscribe();
        return;
      }
      this.source = opened.source;
      this.accept = opened.accept;
      opened.source.on('data', (resolved: AllStreamResolvedEvent) => this.onData(resolved));
      opened.source.on('caughtUp', () => this.onCaughtUp());
      opened.source.on('end', () => this.fail(new Error('The server ended the subscription')));
    } catch (error) {
      this.fail(error);
    }
  }

  private onData(resolved: AllStreamResolvedEvent): void {
    if (this.ended) return;
    this.received += 1;
    try {
      const event = this.accept(resolved);
      if (event !== undefined) {
        this.lastPosition = event.position;
        this.deliver({ kind: 'event', event });
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    this.deliverCaughtUpWhenDue();
  }

  private onCaughtUp(): void {
    if (this.ended || this.caughtUpAfter !== undefined || this.source === undefined) return;
    this.caughtUpAfter = this.received + this.source.readableLength;
    this.deliverCaughtUpWhenDue();
  }

  private deliverCaughtUpWhenDue(): void {
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
    if (this.buffered.length > this.limits.pauseAbove) this.source?.pause();
  }

  private next(): Promise<IteratorResult<SubscriptionMessage>> {
    const message = this.buffered.shift();
    if (message !== undefined) {
      if (this.buffered.length < this.limits.resumeBelow && this.source?.isPaused() === true)
        this.source.resume();
      return Promise.resolve({ done: false, value: message });
    }
    if (this.failure !== undefined) {
      const { error } = this.failure;
      this.failure = undefined;
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
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
    this.onClosed(this);
  }
}
