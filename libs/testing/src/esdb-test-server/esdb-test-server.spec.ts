// The protocol test server, exercised through the real @eventstore/db-client 6.2.1.
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { startEsdbTestServer, type EsdbTestServer, type EsdbTestServerOptions } from './esdb-test-server';

async function collect(events: AsyncIterable<ResolvedEvent>): Promise<ResolvedEvent[]> {
  const collected: ResolvedEvent[] = [];
  for await (const resolved of events) collected.push(resolved);
  return collected;
}

async function errorOf(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

function event(type: string, data: Record<string, unknown> = {}, id?: string) {
  return jsonEvent({ type, data, ...(id === undefined ? {} : { id }) });
}

let streamCounter = 0;
function newStream(prefix = 'stream'): string {
  streamCounter += 1;
  return `${prefix}-${streamCounter}`;
}

function useServer(options: EsdbTestServerOptions = {}): { client: () => EventStoreDBClient } {
  let server: EsdbTestServer;
  let client: EventStoreDBClient;
  beforeAll(async () => {
    server = await startEsdbTestServer(options);
    client = EventStoreDBClient.connectionString(server.connectionString);
  });
  afterAll(async () => {
    await client.dispose();
    await server.stop();
  });
  return { client: () => client };
}

describe.each([
  ['advertising BatchAppend', { batchAppend: true }],
  ['without BatchAppend', { batchAppend: false }],
  ['without ServerFeatures', { withoutServerFeatures: true }],
])('a test server %s', (_title, options: EsdbTestServerOptions) => {
  const { client } = useServer(options);

  it('appends with 0-based revisions and growing positions', async () => {
    const stream = newStream();
    const first = await client().appendToStream(stream, [event('A'), event('B')], {
      expectedRevision: NO_STREAM,
    });
    const second = await client().appendToStream(stream, event('C'), { expectedRevision: 1n });
    expect(first.nextExpectedRevision).toBe(1n);
    expect(second.nextExpectedRevision).toBe(2n);
    expect(second.position!.commit).toBeGreaterThan(first.position!.commit);
    expect(second.position!.prepare).toBe(second.position!.commit);
  });

  it('refuses a wrong expected revision with WrongExpectedVersionError', async () => {
    const stream = newStream();
    await client().appendToStream(stream, event('A'));
    const conflict = await errorOf(() =>
      client().appendToStream(stream, event('B'), { expectedRevision: 5n }),
    );
    expect(conflict).toBeInstanceOf(WrongExpectedVersionError);
    expect(conflict).toMatchObject({ expectedVersion: 5n, actualVersion: 0n });
    const missing = await errorOf(() =>
      client().appendToStream(newStream(), event('B'), { expectedRevision: STREAM_EXISTS }),
    );
    expect(missing).toMatchObject({ expectedVersion: 'stream_exists', actualVersion: 'no_stream' });
  });

  it('treats a retry with the same ids and expectation as a no-op success', async () => {
    const stream = newStream();
    const ids = [globalThis.crypto.randomUUID(), globalThis.crypto.randomUUID()];
    const events = () => [event('A', {}, ids[0]), event('B', {}, ids[1])];
    const first = await client().appendToStream(stream, events(), { expectedRevision: NO_STREAM });
    const retry = await client().appendToStream(stream, events(), { expectedRevision: NO_STREAM });
    expect(retry).toEqual(first);
    expect(await collect(client().readStream(stream))).toHaveLength(2);
  });

  it('refuses appends to a tombstoned stream with StreamDeletedError', async () => {
    const stream = newStream();
    await client().appendToStream(stream, event('A'));
    await client().tombstoneStream(stream);
    expect(await errorOf(() => client().appendToStream(stream, event('B')))).toBeInstanceOf(
      StreamDeletedError,
    );
  });
});

describe('a test server holding two streams', () => {
  const { client } = useServer();
  const streamA = newStream('read');
  const streamB = newStream('read');
  let positions: bigint[] = [];

  beforeAll(async () => {
    await client().appendToStream(streamA, [
      event('A0', { n: 0 }),
      event('A1', { n: 1 }),
      event('A2', { n: 2 }),
    ]);
    await client().appendToStream(streamB, [event('B0')]);
    const all = await collect(client().readAll());
    positions = all
      .filter((resolved) => resolved.event!.streamId.startsWith('read-'))
      .map((r) => r.event!.position!.commit);
  });

  it('reads a stream forwards from an inclusive revision and backwards from the end', async () => {
    const forwards = await collect(client().readStream(streamA, { fromRevision: 1n, direction: FORWARDS }));
    expect(forwards.map((r) => r.event!.revision)).toEqual([1n, 2n]);
    expect(forwards[0]!.event!.data).toEqual({ n: 1 });
    const backwards = await collect(
      client().readStream(streamA, { fromRevision: END, direction: BACKWARDS, maxCount: 2 }),
    );
    expect(backwards.map((r) => r.event!.type)).toEqual(['A2', 'A1']);
  });

  it('reports a missing stream as StreamNotFoundError', async () => {
    expect(await errorOf(() => collect(client().readStream('never-written')))).toBeInstanceOf(
      StreamNotFoundError,
    );
  });

  it('reads $all in both directions with positions (forwards inclusive, backwards exclusive)', async () => {
    expect(positions).toHaveLength(4);
    const from = { commit: positions[1]!, prepare: positions[1]! };
    const forwards = await collect(client().readAll({ fromPosition: from, maxCount: 2 }));
    expect(forwards.map((r) => r.event!.type)).toEqual(['A1', 'A2']);
    const backwards = await collect(client().readAll({ fromPosition: from, direction: BACKWARDS }));
    expect(backwards.map((r) => r.event!.type)).toEqual(['A0']);
    const fromEnd = await collect(client().readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 }));
    expect(fromEnd.map((r) => r.event!.type)).toEqual(['B0']);
  });

  it('gives stream-read events their commit and prepare positions', async () => {
    const [first] = await collect(client().readStream(streamA, { maxCount: 1 }));
    expect(first!.event!.position).toEqual({ commit: positions[0], prepare: positions[0] });
    expect(first!.event!.created.getTime()).toBeGreaterThan(0);
  });
});

describe('a subscription to $all on the test server', () => {
  const { client } = useServer();

  it('delivers filtered history after an exclusive position, then caughtUp, then live events', async () => {
    const stream = newStream('sub');
    // The position an append reports is its last event's: a subscription from it starts after it.
    const first = await client().appendToStream(stream, [event('keep.one'), event('drop.one')]);
    await client().appendToStream(stream, [event('keep.two')]);
    const subscription = client().subscribeToAll({
      fromPosition: START,
      filter: eventTypeFilter({ prefixes: ['keep.'] }),
    });
    const seen: string[] = [];
    subscription.on('caughtUp', () => {
      seen.push('caughtUp');
      void client().appendToStream(stream, [event('keep.three')]);
    });
    for await (const resolved of subscription) {
      seen.push(resolved.event!.type);
      if (resolved.event!.type === 'keep.three') break;
    }
    await subscription.unsubscribe();
    expect(seen).toEqual(['keep.one', 'keep.two', 'caughtUp', 'keep.three']);
    const fromFirst = client().subscribeToAll({
      fromPosition: first.position!,
      filter: streamNameFilter({ prefixes: [stream] }),
    });
    const after: string[] = [];
    for await (const resolved of fromFirst) {
      after.push(resolved.event!.type);
      if (after.length === 2) break;
    }
    await fromFirst.unsubscribe();
    expect(after).toEqual(['keep.two', 'keep.three']);
  });

  it('matches regular expressions and reports checkpoints through checkpointReached', async () => {
    const stream = newStream('regex');
    await client().appendToStream(stream, [event('Alpha'), event('beta'), event('Gamma')]);
    const checkpoints: Position[] = [];
    const subscription = client().subscribeToAll({
      filter: eventTypeFilter({
        regex: '^[A-Z]',
        maxSearchWindow: 1,
        checkpointInterval: 1,
        checkpointReached: (_subscription, position) => {
          checkpoints.push(position);
          return Promise.resolve();
        },
      }),
    });
    const types: string[] = [];
    await new Promise<void>((resolve) => {
      subscription.on('data', (resolved: ResolvedEvent) => types.push(resolved.event!.type));
      subscription.on('caughtUp', resolve);
    });
    await subscription.unsubscribe();
    expect(types).toEqual(['Alpha', 'Gamma']);
    expect(checkpoints.length).toBeGreaterThanOrEqual(3);
  });

  it('excludes system events when asked (metadata events are system events)', async () => {
    const stream = newStream('system');
    await client().setStreamMetadata(stream, { custom: true });
    await client().appendToStream(stream, [event('user.event')]);
    const subscription = client().subscribeToAll({ filter: excludeSystemEvents() });
    const types: string[] = [];
    await new Promise<void>((resolve) => {
      subscription.on('data', (resolved: ResolvedEvent) => types.push(resolved.event!.type));
      subscription.on('caughtUp', resolve);
    });
    await subscription.unsubscribe();
    expect(types).toContain('user.event');
    expect(types.filter((type) => type.startsWith('$'))).toEqual([]);
  });

  it('subscribes to one stream after an exclusive revision', async () => {
    const stream = newStream('one');
    await client().appendToStream(stream, [event('E0'), event('E1'), event('E2')]);
    const subscription = client().subscribeToStream(stream, { fromRevision: 0n });
    const revisions: bigint[] = [];
    for await (const resolved of subscription) {
      revisions.push(resolved.event!.revision);
      if (revisions.length === 2) break;
    }
    await subscription.unsubscribe();
    expect(revisions).toEqual([1n, 2n]);
  });
});

describe('stream metadata and deletion on the test server', () => {
  const { client } = useServer();

  it('stores custom metadata keys and honours maxCount on reads', async () => {
    const stream = newStream('meta');
    await client().appendToStream(stream, [event('A'), event('B'), event('C')]);
    await client().setStreamMetadata(stream, { maxCount: 1, owner: 'strata' });
    const { metadata } = await client().getStreamMetadata(stream);
    expect(metadata).toEqual({ maxCount: 1, owner: 'strata' });
    const visible = await collect(client().readStream(stream));
    expect(visible.map((r) => r.event!.type)).toEqual(['C']);
  });

  it('hides a soft-deleted stream until the next append, which continues its revisions', async () => {
    const stream = newStream('soft');
    await client().appendToStream(stream, [event('A'), event('B')]);
    await client().deleteStream(stream);
    expect(await errorOf(() => collect(client().readStream(stream)))).toBeInstanceOf(StreamNotFoundError);
    const result = await client().appendToStream(stream, event('C'));
    expect(result.nextExpectedRevision).toBe(2n);
    const visible = await collect(client().readStream(stream));
    expect(visible.map((r) => [r.event!.type, r.event!.revision])).toEqual([['C', 2n]]);
  });

  it('closes a tombstoned stream for reads, metadata and deletes, but $all keeps its records', async () => {
    const stream = newStream('tomb');
    await client().appendToStream(stream, [event('secret')]);
    await client().tombstoneStream(stream);
    expect(await errorOf(() => collect(client().readStream(stream)))).toBeInstanceOf(StreamDeletedError);
    expect(await errorOf(() => client().getStreamMetadata(stream))).toBeInstanceOf(StreamDeletedError);
    expect(await errorOf(() => client().tombstoneStream(stream))).toBeInstanceOf(StreamDeletedError);
    const all = await collect(client().readAll());
    const types = all.filter((r) => r.event!.streamId === stream).map((r) => r.event!.type);
    expect(types).toEqual(['secret', '$streamDeleted']);
  });

  it('refuses a tombstone with a wrong expected revision through trailers', async () => {
    const stream = newStream('guard');
    await client().appendToStream(stream, [event('A')]);
    const conflict = await errorOf(() => client().tombstoneStream(stream, { expectedRevision: 3n }));
    expect(conflict).toBeInstanceOf(WrongExpectedVersionError);
    expect(conflict).toMatchObject({ streamName: stream, expectedVersion: 3n, actualVersion: 0n });
  });
});
