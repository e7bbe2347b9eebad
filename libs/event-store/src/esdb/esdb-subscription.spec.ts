// EsdbSubscription on a scripted client stream: where caught_up lands when the client stream was
// paused with events still buffered, and how failures and close() end the iteration.
import { Readable } from 'node:stream';
import type { RecordedEvent, SubscriptionMessage } from '../port';
import { EsdbSubscription } from './esdb-subscription';

interface ScriptedEvent {
  readonly position: bigint;
}

/** A stand-in for the client's subscription stream: events are pushed by the test. */
class ScriptedSource extends Readable {
  unsubscribed = false;

  constructor() {
    super({ objectMode: true });
  }

  override _read(): void {}

  unsubscribe(): Promise<void> {
    this.unsubscribed = true;
    return Promise.resolve();
  }
}

const limits = { maxCount: 512, maxBytes: 1_048_576 };

function recorded({ position }: ScriptedEvent): RecordedEvent {
  return {
    streamId: 'scripted',
    id: `event-${position}`,
    type: 'scripted',
    data: {},
    metadata: {},
    revision: position,
    position,
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

async function started(
  accept: (event: ScriptedEvent) => RecordedEvent | undefined = recorded,
): Promise<{ source: ScriptedSource; subscription: EsdbSubscription }> {
  const source = new ScriptedSource();
  const subscription = new EsdbSubscription(
    () =>
      Promise.resolve({
        source: source,
        accept: accept as unknown as (resolved: unknown) => RecordedEvent | undefined,
      }),
    null,
    () => undefined,
    { maxCount: 2, maxBytes: 1_000_000 },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return { source, subscription };
}

function describeMessage(message: SubscriptionMessage): string {
  return message.kind === 'event' ? `event ${message.event.position}` : `caught_up ${message.position}`;
}

describe('an EsdbSubscription whose consumer is slower than the client stream', () => {
  it('delivers caught_up after the events the paused client stream still buffered', async () => {
    const { source, subscription } = await started();
    for (const position of [1n, 2n, 3n]) source.push({ position });
    expect(source.isPaused()).toBe(true);
    source.push({ position: 4n });
    source.push({ position: 5n });
    source.emit('caughtUp');
    const seen: string[] = [];
    for await (const message of subscription) {
      seen.push(describeMessage(message));
      if (message.kind === 'caught_up') break;
    }
    expect(seen).toEqual(['event 1', 'event 2', 'event 3', 'event 4', 'event 5', 'caught_up 5']);
    expect(source.unsubscribed).toBe(true);
  });

  it('reports the start position with caught_up when no event preceded it', async () => {
    const source = new ScriptedSource();
    const subscription = new EsdbSubscription(
      () => Promise.resolve({ source: source, accept: () => undefined }),
      41n,
      () => undefined,
      limits,
    );
    await new Promise((resolve) => setImmediate(resolve));
    source.push({ position: 50n });
    source.emit('caughtUp');
    const iterator = subscription[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { kind: 'caught_up', position: 41n } });
    await subscription.close();
  });
});

describe('an EsdbSubscription that fails or is closed', () => {
  it('rejects the waiting consumer with the error of the client stream', async () => {
    const { source, subscription } = await started();
    const next = subscription[Symbol.asyncIterator]().next();
    source.emit('error', new Error('connection lost'));
    await expect(next).rejects.toThrow('connection lost');
    expect(source.unsubscribed).toBe(true);
  });

  it('rejects when an event cannot be mapped', async () => {
    const { source, subscription } = await started(() => {
      throw new Error('legacy transaction');
    });
    source.push({ position: 1n });
    await expect(subscription[Symbol.asyncIterator]().next()).rejects.toThrow('legacy transaction');
  });

  it('unsubscribes a client stream that opens after close(), and ignores its late errors', async () => {
    const source = new ScriptedSource();
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const subscription = new EsdbSubscription(
      async () => {
        await opened;
        return { source, accept: () => undefined };
      },
      null,
      () => undefined,
      limits,
    );
    await subscription.close();
    open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.unsubscribed).toBe(true);
    expect(() => source.emit('error', new Error('cancelled by the server'))).not.toThrow();
  });

  it('ends a consumer waiting for live events when closed, and unsubscribes', async () => {
    const { source, subscription } = await started();
    const next = subscription[Symbol.asyncIterator]().next();
    await subscription.close();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(source.unsubscribed).toBe(true);
  });
});
