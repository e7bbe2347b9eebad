// Sparse filtered subscriptions on EventStoreDB (issue 26 item 5): while the server passes over
// events the filter refuses it reports checkpoints, which the adapter delivers as `checkpoint`
// messages after the events received before them, only when they pass the last event delivered.
// Over the protocol test server (checkpoints every 32 events considered with a multiplier of 1),
// then on a scripted client stream for the order against events still buffered.
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import type { EventToAppend, RecordedEvent, SubscriptionMessage } from '../port';
import { EsdbEventStore } from './esdb-event-store';
import { EsdbSubscription } from './esdb-subscription';

function events(count: number, type = 'noise.happened'): EventToAppend[] {
  return Array.from({ length: count }, (_, index) => ({ id: randomUUID(), type, data: { index } }));
}

/** Messages until `until` holds for one (included), failing after `timeoutMs`. */
async function messagesUntil(
  iterator: AsyncIterator<SubscriptionMessage>,
  until: (message: SubscriptionMessage) => boolean,
  timeoutMs = 10_000,
): Promise<SubscriptionMessage[]> {
  const messages: SubscriptionMessage[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no message within ${timeoutMs} ms`)), deadline - Date.now());
    });
    const result = await Promise.race([iterator.next(), timeout]).finally(() => clearTimeout(timer));
    if (result.done === true) throw new Error('the subscription ended');
    messages.push(result.value);
    if (until(result.value)) return messages;
  }
}

function checkpointsOf(messages: readonly SubscriptionMessage[]): bigint[] {
  return messages.flatMap((message) => (message.kind === 'checkpoint' ? [message.position] : []));
}

describe('EsdbEventStore subscriptions over a stretch of events their filter refuses', () => {
  let server: EsdbTestServer;
  let store: EsdbEventStore;

  beforeEach(async () => {
    server = await startEsdbTestServer();
    store = EsdbEventStore.fromConnectionString(server.connectionString, { checkpointIntervalMultiplier: 1 });
  });

  afterEach(async () => {
    await store.close();
    await server.stop();
  });

  it('delivers checkpoints past the last event, up to the end of history, then live ones before the next event', async () => {
    const kept = await store.appendToStream('keep-1', events(1, 'keep.happened'));
    const noise = await store.appendToStream('noise-1', events(100));
    const subscription = store.subscribe({ filter: { streamPrefixes: ['keep-'] } });
    const iterator = subscription[Symbol.asyncIterator]();
    try {
      const history = await messagesUntil(iterator, (message) => message.kind === 'caught_up');
      expect(history[0]).toMatchObject({ kind: 'event', event: { streamId: 'keep-1' } });
      expect(history[history.length - 1]).toEqual({ kind: 'caught_up', position: kept.position });
      const checkpoints = checkpointsOf(history);
      expect(history.filter((message) => message.kind === 'event')).toHaveLength(1);
      expect(checkpoints.length).toBeGreaterThanOrEqual(3);
      expect(
        checkpoints.every((position, index) => position > (checkpoints[index - 1] ?? kept.position)),
      ).toBe(true);
      expect(checkpoints[checkpoints.length - 1]).toBe(noise.position);

      const liveNoise = await store.appendToStream('noise-2', events(40));
      const next = await store.appendToStream('keep-1', events(1, 'keep.happened'));
      const live = await messagesUntil(iterator, (message) => message.kind === 'event');
      const liveCheckpoints = checkpointsOf(live);
      expect(liveCheckpoints.length).toBeGreaterThanOrEqual(1);
      expect(
        liveCheckpoints.every((position) => position > noise.position && position <= liveNoise.position),
      ).toBe(true);
      expect(live[live.length - 1]).toMatchObject({ kind: 'event', event: { position: next.position } });
    } finally {
      await subscription.close();
    }
  });

  it('delivers no checkpoint that does not pass the last event delivered', async () => {
    await store.appendToStream('noise-1', events(40));
    const last = await store.appendToStream('keep-1', events(1, 'keep.happened'));
    const subscription = store.subscribe({ filter: { streamPrefixes: ['keep-'] } });
    try {
      const history = await messagesUntil(
        subscription[Symbol.asyncIterator](),
        (m) => m.kind === 'caught_up',
      );
      // the server's checkpoint at 32 records passes nothing delivered yet; the one at the end of
      // history is the event's own position, and is not delivered
      expect(history.map((message) => message.kind)).toEqual(['checkpoint', 'event', 'caught_up']);
      expect(checkpointsOf(history)[0]!).toBeLessThan(last.position);
    } finally {
      await subscription.close();
    }
  });
});

/** A stand-in for the client's subscription stream: events are pushed by the test. */
class ScriptedSource extends Readable {
  constructor() {
    super({ objectMode: true });
  }

  override _read(): void {}

  unsubscribe(): Promise<void> {
    return Promise.resolve();
  }
}

function recorded(position: bigint): RecordedEvent {
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

describe('EsdbSubscription and the checkpoints of its client stream', () => {
  it('delivers a checkpoint after the events the client stream still buffered before it', async () => {
    const source = new ScriptedSource();
    let reportCheckpoint: (position: bigint) => void = () => undefined;
    const subscription = new EsdbSubscription(
      (onCheckpoint) => {
        reportCheckpoint = onCheckpoint;
        return Promise.resolve({
          source: source as never,
          accept: (resolved) => recorded((resolved as unknown as { position: bigint }).position),
        });
      },
      null,
      () => undefined,
      { maxCount: 1, maxBytes: 1_000_000 },
    );
    await new Promise((resolve) => setImmediate(resolve));
    source.push({ position: 10n });
    source.push({ position: 20n });
    reportCheckpoint(25n);
    reportCheckpoint(15n);
    source.push({ position: 30n });
    reportCheckpoint(30n);
    reportCheckpoint(35n);
    const iterator = subscription[Symbol.asyncIterator]();
    const kinds: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const result = await iterator.next();
      if (result.done === true) throw new Error('ended');
      const message = result.value;
      kinds.push(
        message.kind === 'event'
          ? `event ${message.event.position}`
          : `${message.kind} ${String(message.position)}`,
      );
    }
    await subscription.close();
    // 15 came after 25 (nothing new), 30 is the event's own position: neither passes what went before
    expect(kinds).toEqual(['event 10', 'event 20', 'checkpoint 25', 'event 30', 'checkpoint 35']);
  });
});
