import {
  type AppendResult,
  ConcurrencyError,
  type EventStore,
  type EventToAppend,
  InMemoryEventStore,
} from '@strata/event-store';
import { appendChained } from '../testing/append-chained';
import { createSealingAppender } from './chained-append';
import { GENESIS_HASH, eventHash, UnsealedEventError } from './event-seal';
import { verifyStream } from './verify-chain';

async function collect<Item>(iterable: AsyncIterable<Item>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

const context = { tenant: 'acme', actor: 'ana', correlationId: 'corr-1', causationId: 'cmd-1' };

function entry(id: string, text = id): EventToAppend {
  return { id, type: 'message', data: { text } };
}

describe('appendChained', () => {
  describe('given a new stream', () => {
    it('seals each event with the audit fields and a hash chained from the genesis hash', async () => {
      const store = new InMemoryEventStore();
      await appendChained(
        store,
        'session-1',
        [entry('a'), { ...entry('b'), metadata: { source: 'import' } }],
        {
          context: { ...context, schemaVersion: 3 },
        },
      );
      const [first, second] = await collect(store.readStream('session-1'));
      expect(first!.metadata).toMatchObject({
        tenant: 'acme',
        actor: 'ana',
        correlationId: 'corr-1',
        causationId: 'cmd-1',
        schemaVersion: 3,
        previousHash: GENESIS_HASH,
      });
      expect(first!.metadata['hash']).toBe(eventHash(first!));
      expect(second!.metadata).toMatchObject({ source: 'import', previousHash: first!.metadata['hash'] });
      expect(second!.metadata['hash']).toBe(eventHash(second!));
    });

    it('fills fields the context leaves out from the event metadata, then from defaults', async () => {
      const store = new InMemoryEventStore();
      await appendChained(store, 'session-1', [
        { ...entry('a'), metadata: { actor: 'importer' } },
        entry('b'),
      ]);
      const [first, second] = await collect(store.readStream('session-1'));
      expect(first!.metadata).toMatchObject({
        tenant: 'default',
        actor: 'importer',
        correlationId: 'a',
        causationId: 'a',
        schemaVersion: 1,
      });
      expect(second!.metadata).toMatchObject({ actor: 'unknown', correlationId: 'a' });
    });
  });

  describe('given a sealed stream', () => {
    it('continues the chain across appends so the stream verifies', async () => {
      const store = new InMemoryEventStore();
      await appendChained(store, 's', [entry('a')], { context });
      await appendChained(store, 's', [entry('b'), entry('c')], { context, expectedRevision: 0n });
      await appendChained(store, 's', [entry('d')], { context, expectedRevision: 'stream_exists' });
      expect(await verifyStream(store, 's')).toMatchObject({ ok: true, events: 4 });
    });

    it('reports a stale exact expectation as a ConcurrencyError without retrying', async () => {
      const store = new InMemoryEventStore();
      await appendChained(store, 's', [entry('a'), entry('b')], { context });
      await expect(
        appendChained(store, 's', [entry('c')], { context, expectedRevision: 0n }),
      ).rejects.toMatchObject({
        name: 'ConcurrencyError',
        expected: 0n,
        actual: 1n,
      });
      await expect(
        appendChained(store, 's', [entry('c')], { context, expectedRevision: 'no_stream' }),
      ).rejects.toBeInstanceOf(ConcurrencyError);
      expect(await store.streamRevision('s')).toBe(1n);
    });

    it('returns the earlier result when the same append is run again', async () => {
      const store = new InMemoryEventStore();
      const batch = [entry('a'), entry('b')];
      const first = await appendChained(store, 's', batch, { context });
      const again = await appendChained(store, 's', batch, { context });
      expect(again).toEqual(first);
      expect(await collect(store.readStream('s'))).toHaveLength(2);
    });

    it('refuses to chain onto an event that carries no hash', async () => {
      const store = new InMemoryEventStore();
      await store.appendToStream('s', [entry('plain')]);
      await expect(appendChained(store, 's', [entry('sealed')], { context })).rejects.toBeInstanceOf(
        UnsealedEventError,
      );
    });
  });

  describe("given writers racing on one stream with 'any'", () => {
    it('retries on conflict and keeps one unbroken chain with every event', async () => {
      const store = new InMemoryEventStore();
      const writers = Array.from({ length: 6 }, (_, index) =>
        appendChained(store, 's', [entry(`w${index}`)], { context, maxAttempts: 10 }),
      );
      await Promise.all(writers);
      const verification = await verifyStream(store, 's');
      expect(verification).toMatchObject({ ok: true, events: 6 });
    });

    it('reports the conflict once its attempts are used up', async () => {
      const inner = new InMemoryEventStore();
      let appends = 0;
      const alwaysRaced: EventStore = Object.assign(Object.create(inner) as EventStore, {
        appendToStream: (streamId: string): Promise<AppendResult> => {
          appends += 1;
          return Promise.reject(new ConcurrencyError(streamId, 'no_stream', 0n));
        },
      });
      await expect(
        appendChained(alwaysRaced, 's', [entry('a')], { context, maxAttempts: 3 }),
      ).rejects.toBeInstanceOf(ConcurrencyError);
      expect(appends).toBe(3);
    });
  });
});

describe('createSealingAppender', () => {
  it('seals after the last event the caller read and appends at exactly its revision', async () => {
    const store = new InMemoryEventStore();
    const append = createSealingAppender((request) => ({
      ...context,
      causationId: `cmd-for-${request.streamId}`,
    }));
    await append({
      store,
      streamId: 's',
      events: [entry('a')],
      expectedRevision: 'no_stream',
      lastEvent: undefined,
    });
    const [lastEvent] = await collect(store.readStream('s'));
    await append({ store, streamId: 's', events: [entry('b')], expectedRevision: 0n, lastEvent });
    expect(await verifyStream(store, 's')).toMatchObject({ ok: true, events: 2 });
    expect(lastEvent!.metadata['causationId']).toBe('cmd-for-s');
  });

  it('throws a ConcurrencyError when the stream moved on since it was read', async () => {
    const store = new InMemoryEventStore();
    const append = createSealingAppender(context);
    await append({
      store,
      streamId: 's',
      events: [entry('a')],
      expectedRevision: 'no_stream',
      lastEvent: undefined,
    });
    const [staleLast] = await collect(store.readStream('s'));
    await append({ store, streamId: 's', events: [entry('b')], expectedRevision: 0n, lastEvent: staleLast });
    await expect(
      append({ store, streamId: 's', events: [entry('c')], expectedRevision: 0n, lastEvent: staleLast }),
    ).rejects.toMatchObject({ name: 'ConcurrencyError', expected: 0n, actual: 1n });
  });
});
