// Store-suite cases for EventStoreDB: the EsdbEventStore adapter over the in-process protocol
// test server of @strata/testing (real @eventstore/db-client, real gRPC on loopback), next to
// the bare client writing and reading the same events against the same kind of server. The
// server is a TEST FIXTURE keeping events in memory: these figures measure the adapter's and
// the client's overhead over gRPC, not EventStoreDB's own speed or durability.
import { EventStoreDBClient, jsonEvent, NO_STREAM, type JSONType } from '@eventstore/db-client';
import { startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import { EsdbEventStore } from '../../libs/event-store/src/esdb';
import type { BenchCase } from '../harness';
import { streamOf, type EventBatchPlan } from './event-batches';
import { appendPlanToStore } from './sqlite-cases';

function clientEvents(plan: EventBatchPlan, start: number, end: number) {
  return plan.events.slice(start, end).map((event) =>
    jsonEvent({
      id: event.id,
      type: event.type,
      data: event.data as JSONType,
      ...(event.metadata === undefined ? {} : { metadata: { ...event.metadata } }),
    }),
  );
}

/** Appends the plan with the bare client, exact expected revisions as the adapter uses them. */
export async function appendPlanWithClient(
  client: EventStoreDBClient,
  plan: EventBatchPlan,
): Promise<number> {
  const { events, batchSize, eventsPerStream } = plan;
  let start = 0;
  while (start < events.length) {
    const revisionInStream = start % eventsPerStream;
    const end = Math.min(start + batchSize, events.length, start - revisionInStream + eventsPerStream);
    await client.appendToStream(streamOf(start, eventsPerStream), clientEvents(plan, start, end), {
      expectedRevision: revisionInStream === 0 ? NO_STREAM : BigInt(revisionInStream - 1),
    });
    start = end;
  }
  return events.length;
}

interface ClientState {
  readonly server: EsdbTestServer;
  readonly client: EventStoreDBClient;
}

interface AdapterState {
  readonly server: EsdbTestServer;
  readonly store: EsdbEventStore;
}

/** A connected client: the feature query and the channel set-up happen before timing. */
async function connectedClient(server: EsdbTestServer): Promise<EventStoreDBClient> {
  const client = EventStoreDBClient.connectionString(server.connectionString);
  await client.appendToStream('bench-warm-up', [jsonEvent({ type: 'WarmUp', data: {} })]);
  return client;
}

export function esdbAppendCases(plan: EventBatchPlan): BenchCase<unknown>[] {
  const group = `EventStoreDB (test server) appends, ${plan.batchSize} event${plan.batchSize === 1 ? '' : 's'} per append`;
  const common = {
    group,
    unit: 'event',
    operationsPerIteration: plan.events.length,
    details: { batchSize: plan.batchSize, events: plan.events.length, eventsPerStream: plan.eventsPerStream },
  };
  const clientCase: BenchCase<ClientState> = {
    ...common,
    name: `esdb/append-${plan.batchSize}/client`,
    role: 'baseline',
    label: 'bare @eventstore/db-client',
    setup: async () => {
      const server = await startEsdbTestServer();
      return { server, client: await connectedClient(server) };
    },
    run: (state) => appendPlanWithClient(state.client, plan),
    teardown: async (state) => {
      await state.client.dispose();
      await state.server.stop();
    },
  };
  const adapterCase: BenchCase<AdapterState> = {
    ...common,
    name: `esdb/append-${plan.batchSize}/adapter`,
    role: 'subject',
    label: 'EsdbEventStore.appendToStream',
    setup: async () => {
      const server = await startEsdbTestServer();
      const store = new EsdbEventStore(await connectedClient(server), { disposeClientOnClose: true });
      return { server, store };
    },
    run: (state) => appendPlanToStore(state.store, plan),
    teardown: async (state) => {
      await state.store.close();
      await state.server.stop();
    },
  };
  return [clientCase, adapterCase];
}

/** One server holding the plan's events, a bare client and an adapter on it, for reads. */
export interface EsdbReadFixture {
  readonly client: EventStoreDBClient;
  readonly store: EsdbEventStore;
  readonly streamIds: readonly string[];
  readonly totalEvents: number;
  close(): Promise<void>;
}

export async function esdbReadFixture(plan: EventBatchPlan): Promise<EsdbReadFixture> {
  const server = await startEsdbTestServer();
  const client = await connectedClient(server);
  await appendPlanWithClient(client, plan);
  const store = EsdbEventStore.fromConnectionString(server.connectionString);
  const streamIds = [...new Set(plan.events.map((_, index) => streamOf(index, plan.eventsPerStream)))];
  return {
    client,
    store,
    streamIds,
    totalEvents: plan.events.length,
    async close() {
      await store.close();
      await client.dispose();
      await server.stop();
    },
  };
}

async function countEvents(events: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const event of events) if (event !== undefined) count += 1;
  return count;
}

export function esdbReadCases(fixture: EsdbReadFixture, eventsPerStream: number): BenchCase<unknown>[] {
  let clientTurn = 0;
  let adapterTurn = 0;
  const nextStream = (turn: number): string => fixture.streamIds[turn % fixture.streamIds.length] as string;
  const stream = {
    group: `EventStoreDB (test server) stream reads (${eventsPerStream} events)`,
    unit: 'event',
    operationsPerIteration: eventsPerStream,
  };
  const all = {
    group: `EventStoreDB (test server) global reads (readAll, ${fixture.totalEvents} events)`,
    unit: 'event',
    operationsPerIteration: fixture.totalEvents,
  };
  return [
    { ...stream, name: 'esdb/read-stream/client', role: 'baseline', label: 'bare client readStream', run: () => countEvents(fixture.client.readStream(nextStream((clientTurn += 1)))) },
    { ...stream, name: 'esdb/read-stream/adapter', role: 'subject', label: 'EsdbEventStore.readStream', run: () => countEvents(fixture.store.readStream(nextStream((adapterTurn += 1)))) },
    { ...all, name: 'esdb/read-all/client', role: 'baseline', label: 'bare client readAll', run: () => countEvents(fixture.client.readAll()) },
    { ...all, name: 'esdb/read-all/adapter', role: 'subject', label: 'EsdbEventStore.readAll', run: () => countEvents(fixture.store.readAll()) },
  ]; // prettier-ignore
}
