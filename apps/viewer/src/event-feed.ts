// The live event stream (/events) read with fetch, so that the API key travels in a header
// (EventSource cannot send one). Reconnects after a drop with the last event id, so nothing is
// missed or repeated; reports its state for the status badge. The frames are read by
// @strata/client's parser, bounded like the client's own subscription.
import { EventStreamParser } from '@strata/client/browser';
import { apiUrl, authorizationHeaders, type QueryValues } from './api.js';

export type FeedState = 'connecting' | 'live' | 'reconnecting' | 'unauthorized' | 'closed';

export interface PublicEventMessage {
  readonly id: string;
  readonly name: string;
  readonly sessionId: string;
  readonly position: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface EventFeedOptions {
  readonly query: QueryValues;
  /** Resume after this event id (a global position) instead of starting live. */
  readonly lastEventId?: string;
  readonly onEvent: (event: PublicEventMessage) => void;
  readonly onState: (state: FeedState) => void;
}

const RETRY_DELAYS_MS = [500, 1_000, 2_000, 5_000];
/** The longest event taken (characters); a longer one is a protocol error and the feed reconnects. */
const MAX_EVENT_LENGTH = 64 * 1024 * 1024;

export class EventFeed {
  private readonly controller = new AbortController();
  private lastEventId: string | undefined;
  private failures = 0;

  constructor(private readonly options: EventFeedOptions) {
    this.lastEventId = options.lastEventId;
  }

  start(): this {
    void this.run();
    return this;
  }

  close(): void {
    this.controller.abort();
    this.options.onState('closed');
  }

  private get closed(): boolean {
    return this.controller.signal.aborted;
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      this.options.onState(this.failures === 0 ? 'connecting' : 'reconnecting');
      try {
        const status = await this.readOnce();
        if (status === 401) {
          this.options.onState('unauthorized');
          return;
        }
      } catch {
        // A dropped connection: retried below.
      }
      if (this.closed) return;
      const delay = RETRY_DELAYS_MS[Math.min(this.failures, RETRY_DELAYS_MS.length - 1)] ?? 5_000;
      this.failures += 1;
      this.options.onState('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** One connection until it ends; answers the HTTP status. */
  private async readOnce(): Promise<number> {
    const resume: Record<string, string> =
      this.lastEventId !== undefined ? { 'Last-Event-ID': this.lastEventId } : {};
    const response = await fetch(apiUrl('/events', this.options.query), {
      headers: { Accept: 'text/event-stream', ...authorizationHeaders(), ...resume },
      signal: this.controller.signal,
      cache: 'no-store',
    });
    if (!response.ok || response.body === null) return response.status;
    let caughtUp = false;
    const messages: PublicEventMessage[] = [];
    const parser = new EventStreamParser(
      {
        onEvent: (frame) => {
          if (frame.id !== undefined) this.lastEventId = frame.id;
          messages.push(JSON.parse(frame.data) as PublicEventMessage);
        },
        onComment: (text) => {
          if (text.startsWith('caught up')) caughtUp = true;
        },
      },
      MAX_EVENT_LENGTH,
    );
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return response.status;
      parser.push(value);
      if (caughtUp) {
        caughtUp = false;
        this.failures = 0;
        this.options.onState('live');
      }
      for (const message of messages.splice(0)) this.options.onEvent(message);
    }
  }
}
