// Store-suite cases for SQLite: appends (1, 10 and 100 events per append) and reads (one
// stream, the whole log) through the SQLite adapter, each next to raw better-sqlite3 doing the
// same writes or reads of the same rows. Every append iteration starts from a fresh database file.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EventStore } from '@strata/event-store';
import { SqliteEventStore } from '../../libs/event-store/src/sqlite';
import type { BenchCase } from '../harness';
import { streamOf, type EventBatchPlan } from './event-batches';
import { RawSqliteEvents } from './raw-sqlite';

let databaseCounter = 0;

/** A fresh database file name in `directory`, and a function that removes it with its WAL files. */
export function freshDatabase(directory: string, label: string): { filename: string; remove: () => void } {
  databaseCounter += 1;
  const filename = path.join(directory, `${label}-${databaseCounter}.db`);
  return {
    filename,
    remove: () => {
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${filename}${suffix}`, { force: true });
    },
  };
}

/** Appends every event of the plan through an event store, with exact expected revisions. */
export async function appendPlanToStore(store: EventStore, plan: EventBatchPlan): Promise<number> {
  const { events, batchSize, eventsPerStream } = plan;
  let start = 0;
  while (start < events.length) {
    const revisionInStream = start % eventsPerStream;
    const end = Math.min(start + batchSize, events.length, start - revisionInStream + eventsPerStream);
    await store.appendToStream(streamOf(start, eventsPerStream), events.slice(start, end), {
      expectedRevision: revisionInStream === 0 ? 'no_stream' : BigInt(revisionInStream - 1),
    });
    start = end;
  }
  return events.length;
}

/** Appends every row of the plan with raw better-sqlite3, one transaction per batch. */
export function appendPlanRaw(raw: RawSqliteEvents, plan: EventBatchPlan): number {
  const { rows, batchSize, eventsPerStream } = plan;
  let start = 0;
  while (start < rows.length) {
    const revisionInStream = start % eventsPerStream;
    const end = Math.min(start + batchSize, rows.length, start - revisionInStream + eventsPerStream);
    raw.append(streamOf(start, eventsPerStream), revisionInStream, rows.slice(start, end));
    start = end;
  }
  return rows.length;
}

/** Like `appendPlanRaw`, but serialising each event's data and metadata inside the timed loop. */
export function appendPlanRawSerialising(raw: RawSqliteEvents, plan: EventBatchPlan): number {
  const { events, batchSize, eventsPerStream } = plan;
  let start = 0;
  while (start < events.length) {
    const revisionInStream = start % eventsPerStream;
    const end = Math.min(start + batchSize, events.length, start - revisionInStream + eventsPerStream);
    const rows = events.slice(start, end).map((event) => ({
      id: event.id,
      type: event.type,
      data: JSON.stringify(event.data),
      metadata: JSON.stringify(event.metadata ?? {}),
    }));
    raw.append(streamOf(start, eventsPerStream), revisionInStream, rows);
    start = end;
  }
  return events.length;
}

function averageRowBytes(plan: EventBatchPlan): number {
  let bytes = 0;
  for (const row of plan.rows) bytes += row.data.length + row.metadata.length;
  return Math.round(bytes / Math.max(1, plan.rows.length));
}

interface RawState {
  readonly raw: RawSqliteEvents;
  readonly remove: () => void;
}

interface AdapterState {
  readonly store: SqliteEventStore;
  readonly remove: () => void;
}

/** `payload` names the event payloads when they are not the default session entries. */
export function sqliteAppendCases(
  plan: EventBatchPlan,
  scratchDirectory: string,
  payload?: { readonly name: string; readonly description: string },
): BenchCase<unknown>[] {
  const events = `${plan.batchSize} ${payload === undefined ? '' : `${payload.description} `}event${plan.batchSize === 1 ? '' : 's'}`;
  const group = `SQLite appends, ${events} per append`;
  const key = `append-${plan.batchSize}${payload === undefined ? '' : `-${payload.name}`}`;
  const common = {
    group,
    unit: 'event',
    operationsPerIteration: plan.events.length,
    details: {
      batchSize: plan.batchSize,
      events: plan.events.length,
      eventsPerStream: plan.eventsPerStream,
      averageRowBytes: averageRowBytes(plan),
    },
  };
  const rawCase: BenchCase<RawState> = {
    ...common,
    name: `sqlite/${key}/raw`,
    role: 'baseline',
    label: 'raw better-sqlite3 (same rows, pre-serialised)',
    setup: () => {
      const database = freshDatabase(scratchDirectory, 'raw');
      return { raw: new RawSqliteEvents(database.filename), remove: database.remove };
    },
    run: (state) => appendPlanRaw(state.raw, plan),
    teardown: (state) => {
      state.raw.close();
      state.remove();
    },
  };
  const rawSerialisingCase: BenchCase<RawState> = {
    ...rawCase,
    name: `sqlite/${key}/raw-with-json`,
    label: 'raw better-sqlite3 + JSON.stringify per event',
    run: (state) => appendPlanRawSerialising(state.raw, plan),
  };
  const adapterCase: BenchCase<AdapterState> = {
    ...common,
    name: `sqlite/${key}/adapter`,
    role: 'subject',
    label: 'SqliteEventStore.appendToStream',
    setup: () => {
      const database = freshDatabase(scratchDirectory, 'adapter');
      return { store: new SqliteEventStore({ filename: database.filename }), remove: database.remove };
    },
    run: (state) => appendPlanToStore(state.store, plan),
    teardown: async (state) => {
      await state.store.close();
      state.remove();
    },
  };
  return [rawCase, rawSerialisingCase, adapterCase];
}

/** Two databases holding the same events (one written raw, one through the adapter), for reads. */
export interface ReadFixture {
  readonly raw: RawSqliteEvents;
  readonly store: SqliteEventStore;
  readonly streamIds: readonly string[];
  readonly totalEvents: number;
  close(): Promise<void>;
}

export async function sqliteReadFixture(
  plan: EventBatchPlan,
  scratchDirectory: string,
): Promise<ReadFixture> {
  const rawDatabase = freshDatabase(scratchDirectory, 'raw-read');
  const adapterDatabase = freshDatabase(scratchDirectory, 'adapter-read');
  const raw = new RawSqliteEvents(rawDatabase.filename);
  const store = new SqliteEventStore({ filename: adapterDatabase.filename });
  appendPlanRaw(raw, plan);
  await appendPlanToStore(store, plan);
  const streamIds = [...new Set(plan.events.map((_, index) => streamOf(index, plan.eventsPerStream)))];
  return {
    raw,
    store,
    streamIds,
    totalEvents: plan.events.length,
    async close() {
      raw.close();
      await store.close();
      rawDatabase.remove();
      adapterDatabase.remove();
    },
  };
}

async function countEvents(events: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const event of events) if (event !== undefined) count += 1;
  return count;
}

export function sqliteReadCases(fixture: ReadFixture, eventsPerStream: number): BenchCase<unknown>[] {
  let rawTurn = 0;
  let adapterTurn = 0;
  const nextStream = (turn: number): string => fixture.streamIds[turn % fixture.streamIds.length] as string;
  const stream = {
    group: `SQLite stream reads (${eventsPerStream} events)`,
    unit: 'event',
    operationsPerIteration: eventsPerStream,
  };
  const all = {
    group: `SQLite global reads (readAll, ${fixture.totalEvents} events)`,
    unit: 'event',
    operationsPerIteration: fixture.totalEvents,
  };
  return [
    { ...stream, name: 'sqlite/read-stream/raw', role: 'baseline', label: 'raw SELECT + JSON.parse', run: () => fixture.raw.readStream(nextStream((rawTurn += 1))) },
    { ...stream, name: 'sqlite/read-stream/adapter', role: 'subject', label: 'SqliteEventStore.readStream', run: () => countEvents(fixture.store.readStream(nextStream((adapterTurn += 1)))) },
    { ...all, name: 'sqlite/read-all/raw', role: 'baseline', label: 'raw SELECT + JSON.parse', run: () => fixture.raw.readAll() },
    { ...all, name: 'sqlite/read-all/adapter', role: 'subject', label: 'SqliteEventStore.readAll', run: () => countEvents(fixture.store.readAll()) },
  ]; // prettier-ignore
}
