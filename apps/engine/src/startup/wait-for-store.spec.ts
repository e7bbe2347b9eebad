import { EsdbEventStore, SqliteEventStore, type EventStore } from '@strata/event-store';
import { freeLoopbackPort, startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import { StoreUnreachableError, waitForStore } from './wait-for-store';

describe('waiting at start-up for an EventStoreDB node that is not listening yet', () => {
  let port: number;
  let store: EsdbEventStore;
  let server: EsdbTestServer | undefined;

  beforeEach(async () => {
    port = await freeLoopbackPort();
    store = EsdbEventStore.fromConnectionString(`esdb://127.0.0.1:${port}?tls=false`);
  });

  afterEach(async () => {
    await store.close();
    await server?.stop();
    server = undefined;
  });

  it('tries again, saying so, until the node answers', async () => {
    const waiting: string[] = [];
    const tries = await waitForStore(store, {
      timeoutMs: 60_000,
      storeDescription: `EventStoreDB 127.0.0.1:${port}`,
      onWaiting: (message) => waiting.push(message),
      sleep: async () => {
        if (waiting.length === 2) server = await startEsdbTestServer({ port });
      },
    });
    expect(tries).toBe(3);
    expect(waiting).toHaveLength(2);
    expect(waiting[0]).toMatch(
      /^waiting for the event store \(EventStoreDB 127\.0\.0\.1:\d+\): unavailable; trying again in 250 ms$/,
    );
    expect(waiting[1]).toContain('trying again in 500 ms');
  });

  it('gives up when the time allowed is over, naming the store, the tries and the reason', async () => {
    let clock = 0;
    const failure = await waitForStore(store, {
      timeoutMs: 1_000,
      storeDescription: 'EventStoreDB nowhere',
      now: () => clock,
      sleep: (milliseconds) => {
        clock += milliseconds;
        return Promise.resolve();
      },
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreUnreachableError);
    expect(failure).toMatchObject({ tries: 3, waitedMs: 750, reason: 'unavailable' });
    expect((failure as Error).message).toContain('STRATA_STORE_WAIT_MS');
  });
});

describe('waiting at start-up for a store that fails otherwise', () => {
  it('does not wait: the error is not about reaching the store', async () => {
    const broken: EventStore = Object.create(new SqliteEventStore({ filename: ':memory:' })) as EventStore;
    broken.streamRevision = () => Promise.reject(new TypeError('a bug'));
    const sleeps: number[] = [];
    await expect(
      waitForStore(broken, {
        timeoutMs: 60_000,
        storeDescription: 'SQLite',
        sleep: (milliseconds) => {
          sleeps.push(milliseconds);
          return Promise.resolve();
        },
      }),
    ).rejects.toThrow('a bug');
    expect(sleeps).toEqual([]);
  });

  it('answers at once for a SQLite store', async () => {
    const store = new SqliteEventStore({ filename: ':memory:' });
    await expect(waitForStore(store, { timeoutMs: 0, storeDescription: 'SQLite' })).resolves.toBe(1);
    await store.close();
  });
});
