// The EventStoreDB adapter: the shared contract suite over the in-process protocol test server,
// again over a real server when ESDB_CONNECTION_STRING is set, and the adapter's own rules.
import { randomUUID } from 'node:crypto';
import { EventStoreDBClient, jsonEvent, type ResolvedEvent } from '@eventstore/db-client';
import { startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import {
  collect,
  describeCheckpointStoreContract,
  describeEventStoreContract,
  type ContractStoreOptions,
  type EventStoreContractFeatures,
} from '../contract';
import { AppendTooLargeError, DuplicateEventIdError, StreamErasedError, type EventToAppend } from '../port';
import { EsdbCheckpointStore } from './esdb-checkpoint-store';
import { EsdbEventStore } from './esdb-event-store';
import { ERASURE_STREAM, fromEsdbPosition } from './esdb-mapping';

/**
 * EventStoreDB recognises a reused event id only as a retry of the same append, so an id written
 * elsewhere is written again (`uniqueEventIds: false`). Erased streams do leave `readAll` and new
 * subscriptions at once: the adapter hides them until a scavenge removes them physically. Every
 * attempt of a racing writer costs two gRPC round trips, so fewer writers race than in-process.
 */
const esdbFeatures: EventStoreContractFeatures = {
  uniqueEventIds: false,
  erasureRemovesFromReadAll: true,
  revivesErasedStreams: false,
  concurrentWriters: 4,
  eventsPerWriter: 6,
};

function storeOn(connectionString: () => string) {
  return (options: ContractStoreOptions = {}) => {
    const store = EsdbEventStore.fromConnectionString(connectionString(), {
      pageSize: options.pageSize,
      pageBytes: options.pageBytes,
    });
    return Promise.resolve({ store, cleanup: () => store.close() });
  };
}

/** A fresh test server per contract test, so each test reads a small `$all`. */
async function storeOnFreshTestServer(options: ContractStoreOptions = {}) {
  const server = await startEsdbTestServer();
  const store = EsdbEventStore.fromConnectionString(server.connectionString, {
    pageSize: options.pageSize,
    pageBytes: options.pageBytes,
  });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await server.stop();
    },
  };
}

function checkpointsOn(connectionString: () => string) {
  return () => {
    const client = EventStoreDBClient.connectionString(connectionString());
    const checkpoints = new EsdbCheckpointStore(client, { namespace: randomUUID() });
    return Promise.resolve({ checkpoints, cleanup: () => client.dispose() });
  };
}

function anEvent(type = 'thing-happened', data: unknown = { value: 1 }): EventToAppend {
  return { id: randomUUID(), type, data };
}

async function rawAll(client: EventStoreDBClient): Promise<ResolvedEvent[]> {
  const events: ResolvedEvent[] = [];
  for await (const resolved of client.readAll()) events.push(resolved);
  return events;
}

describe('EsdbEventStore over the protocol test server', () => {
  let server: EsdbTestServer;
  beforeAll(async () => {
    server = await startEsdbTestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  describeEventStoreContract('EsdbEventStore (test server)', storeOnFreshTestServer, esdbFeatures);
  describeCheckpointStoreContract(
    'EsdbCheckpointStore (test server)',
    checkpointsOn(() => server.connectionString),
  );

  describe('given a store and a raw client on the same server', () => {
    let store: EsdbEventStore;
    let raw: EventStoreDBClient;
    beforeEach(() => {
      store = EsdbEventStore.fromConnectionString(server.connectionString);
      raw = EventStoreDBClient.connectionString(server.connectionString);
    });
    afterEach(async () => {
      await store.close();
      await raw.dispose();
    });

    it("uses the server's commit position of each event as its global position", async () => {
      const streamId = `positions-${randomUUID()}`;
      const result = await store.appendToStream(streamId, [anEvent(), anEvent()]);
      const rawEvents = (await rawAll(raw)).filter((resolved) => resolved.event?.streamId === streamId);
      const positions = (await collect(store.readStream(streamId))).map((event) => event.position);
      expect(positions).toEqual(rawEvents.map((resolved) => resolved.event!.position!.commit));
      expect(result.position).toBe(positions[1]);
    });

    it('shows no system events, metadata events, checkpoints or erasure records in readAll or subscribe', async () => {
      const streamId = `hidden-${randomUUID()}`;
      await store.appendToStream(streamId, [anEvent('visible')]);
      await store.setStreamMetadata(streamId, { owner: 'ops' });
      await new EsdbCheckpointStore(raw).store(`hidden-${randomUUID()}`, 42n);
      await store.eraseStream(`erased-${randomUUID()}`, { actor: 'ops', reason: 'test' });
      const everything = await collect(store.readAll());
      expect(
        everything.filter((event) => event.type.startsWith('$') || event.streamId.startsWith('$')),
      ).toEqual([]);
      expect(everything.filter((event) => event.streamId.startsWith('strata-'))).toEqual([]);
      const subscription = store.subscribe();
      const seen: string[] = [];
      for await (const message of subscription) {
        if (message.kind === 'caught_up') break;
        if (message.kind === 'event') seen.push(message.event.streamId);
      }
      await subscription.close();
      expect(seen).toContain(streamId);
      expect(seen.filter((name) => name.startsWith('$') || name.startsWith('strata-'))).toEqual([]);
    });

    it('hides an erased stream that the server still keeps in $all, and writes an audit record without content', async () => {
      const streamId = `erased-${randomUUID()}`;
      await store.appendToStream(streamId, [anEvent('message', { text: 'private words' })]);
      const record = await store.eraseStream(streamId, { actor: 'dpo', reason: 'request', tenant: 't1' });
      const rawTypes = (await rawAll(raw))
        .filter((r) => r.event?.streamId === streamId)
        .map((r) => r.event!.type);
      expect(rawTypes).toEqual(['message', '$streamDeleted']);
      const visible = await collect(store.readAll());
      expect(visible.filter((event) => event.streamId === streamId)).toEqual([]);
      const audit = (await rawAll(raw)).filter((r) => r.event?.streamId === ERASURE_STREAM);
      const ours = audit.map((r) => r.event!.data).filter((data) => JSON.stringify(data).includes(streamId));
      expect(ours).toEqual([{ ...record }]);
      expect(JSON.stringify(ours)).not.toContain('private words');
      await expect(store.eraseStream(streamId, { actor: 'dpo', reason: 'again' })).rejects.toBeInstanceOf(
        StreamErasedError,
      );
    });

    it('delivers caught_up after the whole history, with the position of its last event', async () => {
      const streamId = `bulk-${randomUUID()}`;
      const history = Array.from({ length: 300 }, (_, index) => anEvent('bulk', { index }));
      await store.appendToStream(streamId, history);
      const subscription = store.subscribe({ filter: { streamPrefixes: [streamId] } });
      const delivered: bigint[] = [];
      let caughtUpAt: bigint | null | undefined;
      for await (const message of subscription) {
        if (message.kind === 'caught_up') {
          caughtUpAt = message.position;
          break;
        }
        if (message.kind === 'event') delivered.push(message.event.position);
      }
      await subscription.close();
      expect(delivered).toHaveLength(history.length);
      expect(caughtUpAt).toBe(delivered[delivered.length - 1]);
    });

    it('refuses event ids that are not UUIDs before anything reaches the server', async () => {
      const streamId = `not-uuid-${randomUUID()}`;
      await expect(store.appendToStream(streamId, [{ ...anEvent(), id: 'e1' }])).rejects.toThrow(/UUID/);
      expect(await store.streamRevision(streamId)).toBeNull();
    });

    it('refuses a batch that names one id twice, and otherwise follows the server on reused ids', async () => {
      const streamId = `ids-${randomUUID()}`;
      const repeated = anEvent();
      await expect(store.appendToStream(streamId, [repeated, repeated])).rejects.toBeInstanceOf(
        DuplicateEventIdError,
      );
      const first = await store.appendToStream(streamId, [repeated, anEvent()]);
      const retried = await store.appendToStream(streamId, [repeated]);
      expect(retried).toEqual({
        nextExpectedRevision: 0n,
        position: (await collect(store.readStream(streamId)))[0]!.position,
      });
      const recordedAgain = await store.appendToStream(streamId, [repeated], {
        expectedRevision: first.nextExpectedRevision,
      });
      expect(recordedAgain.nextExpectedRevision).toBe(2n);
      expect((await collect(store.readStream(streamId))).map((event) => event.id)).toEqual([
        repeated.id,
        expect.any(String),
        repeated.id,
      ]);
    });
  });

  it('refuses one number for an event whose commit and prepare positions differ (a legacy transaction)', () => {
    expect(fromEsdbPosition({ commit: 10n, prepare: 10n }, 'event')).toBe(10n);
    expect(() => fromEsdbPosition({ commit: 20n, prepare: 10n }, 'event')).toThrow(/legacy TCP transactions/);
  });
});

describe('EsdbEventStore on a server without BatchAppend (the client-streaming Append path)', () => {
  let server: EsdbTestServer;
  let store: EsdbEventStore;
  beforeAll(async () => {
    server = await startEsdbTestServer({ batchAppend: false });
    store = EsdbEventStore.fromConnectionString(server.connectionString);
  });
  afterAll(async () => {
    await store.close();
    await server.stop();
  });

  it('maps conflicts to ConcurrencyError and erased streams to StreamErasedError', async () => {
    const streamId = `append-path-${randomUUID()}`;
    await store.appendToStream(streamId, [anEvent()], { expectedRevision: 'no_stream' });
    await expect(store.appendToStream(streamId, [anEvent()], { expectedRevision: 5n })).rejects.toMatchObject(
      {
        name: 'ConcurrencyError',
        expected: 5n,
        actual: 0n,
      },
    );
    await store.eraseStream(streamId, { actor: 'ops', reason: 'test' });
    await expect(store.appendToStream(streamId, [anEvent()])).rejects.toBeInstanceOf(StreamErasedError);
  });

  it('writes through the raw client the same events the store reads', async () => {
    const streamId = `raw-${randomUUID()}`;
    const raw = EventStoreDBClient.connectionString(server.connectionString);
    try {
      await raw.appendToStream(
        streamId,
        jsonEvent({ type: 'raw', data: { ok: true }, metadata: { actor: 'a' } }),
      );
      const [event] = await collect(store.readStream(streamId));
      expect(event).toMatchObject({
        streamId,
        type: 'raw',
        data: { ok: true },
        metadata: { actor: 'a' },
        revision: 0n,
      });
    } finally {
      await raw.dispose();
    }
  });
});

describe('EsdbEventStore reading events of about 2 kB with pages limited to 3 kB', () => {
  let server: EsdbTestServer;
  let store: EsdbEventStore;
  beforeEach(async () => {
    server = await startEsdbTestServer();
    store = EsdbEventStore.fromConnectionString(server.connectionString, { pageBytes: 3_000 });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await store.close();
    await server.stop();
  });

  it('asks the server again after every page instead of keeping one read of 512 events', async () => {
    const streamId = `paged-${randomUUID()}`;
    const events = Array.from({ length: 9 }, (_, index) =>
      anEvent('sized', { text: String(index).padEnd(2_000, '.') }),
    );
    await store.appendToStream(streamId, events);
    const streamReads = jest.spyOn(store.client, 'readStream');
    const allReads = jest.spyOn(store.client, 'readAll');
    expect((await collect(store.readStream(streamId))).map((event) => event.id)).toEqual(
      events.map((event) => event.id),
    );
    expect((await collect(store.readAll())).map((event) => event.id)).toEqual(
      events.map((event) => event.id),
    );
    expect(streamReads.mock.calls.length).toBeGreaterThanOrEqual(5);
    expect(allReads.mock.calls.length).toBeGreaterThanOrEqual(5);
  });
});

const realServer = process.env.ESDB_CONNECTION_STRING;
if (realServer !== undefined && realServer !== '') {
  describe('EsdbEventStore on the real server of ESDB_CONNECTION_STRING', () => {
    describeEventStoreContract(
      'EsdbEventStore (real server)',
      storeOn(() => realServer),
      {
        ...esdbFeatures,
        messageTimeoutMs: 15_000,
      },
    );
    describeCheckpointStoreContract(
      'EsdbCheckpointStore (real server)',
      checkpointsOn(() => realServer),
    );
  });
} else {
  console.info('Skipping the EventStoreDB contract on a real server: ESDB_CONNECTION_STRING is not set');
  describe.skip('EsdbEventStore on a real server (set ESDB_CONNECTION_STRING)', () => {
    it('runs the event-store contract against it', () => undefined);
  });
}

describe.each([
  ['BatchAppend', true],
  ['the client-streaming Append', false],
])('EsdbEventStore on a node with a maximum append size, through %s', (_path, batchAppend) => {
  let server: EsdbTestServer;
  let store: EsdbEventStore;

  beforeAll(async () => {
    server = await startEsdbTestServer({ maxAppendBytes: 4096, batchAppend });
    store = EsdbEventStore.fromConnectionString(server.connectionString);
  });

  afterAll(async () => {
    await store.close();
    await server.stop();
  });

  it('refuses a larger batch with AppendTooLargeError naming the bound, and stores nothing of it', async () => {
    const streamId = `sized-${randomUUID()}`;
    const event = (text: string): EventToAppend => ({ id: randomUUID(), type: 'Noted', data: { text } });
    await store.appendToStream(streamId, [event('small')]);
    const refused = store.appendToStream(streamId, [event('a'.repeat(3000)), event('b'.repeat(3000))]);
    await expect(refused).rejects.toBeInstanceOf(AppendTooLargeError);
    await expect(refused).rejects.toMatchObject({ streamId, maxAppendBytes: 4096 });
    expect(await store.streamRevision(streamId)).toBe(0n);
  });
});
