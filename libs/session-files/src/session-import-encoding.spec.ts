import { piFixtureExists, readPiFixture } from '@strata/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConcurrencyError, type EventStore, SqliteEventStore } from '@strata/event-store';
import { verifyStreamIntegrity } from '@strata/integrity';
import { encodeNewSessionImport } from './session-import-encoding';
import { prepareSessionImport, writeSessionImport } from './session-import';

const FIXTURES = ['before-compaction.jsonl', 'large-session.jsonl'].filter(piFixtureExists);
// one fixed clock: the two imports compared event for event seal the same times
const options = {
  tenant: 'acme',
  actor: 'importer',
  metadata: { onBehalfOf: 'alice' },
  now: () => new Date('2026-01-01T00:00:00.000Z'),
};

async function storedEvents(store: EventStore, streamId: string) {
  const events = [];
  for await (const { id, type, data, metadata, revision } of store.readStream(streamId)) {
    events.push({ id, type, data, metadata, revision });
  }
  return events;
}

describe('encodeNewSessionImport', () => {
  let directory: string;
  let stores: SqliteEventStore[];

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-encoded-import-'));
    stores = [];
  });

  afterEach(async () => {
    await Promise.all(stores.map((store) => store.close()));
    rmSync(directory, { recursive: true, force: true });
  });

  const openStore = (name: string) => {
    const store = new SqliteEventStore({ filename: join(directory, name) });
    stores.push(store);
    return store;
  };

  it.each(FIXTURES)('stores %s exactly as the import through the store does, chain intact', async (name) => {
    const prepared = prepareSessionImport(readPiFixture(name));
    const direct = openStore('direct.db');
    const directReport = await writeSessionImport(direct, prepared, options);
    const encoded = await encodeNewSessionImport(prepared, options);
    expect(encoded.report).toEqual(directReport);

    const store = openStore('encoded.db');
    const written = await store.appendEncoded(encoded.report.streamId, encoded.events, {
      expectedRevision: 'no_stream',
    });
    expect(written.nextExpectedRevision).toBe(directReport.revision);
    const expected = await storedEvents(direct, directReport.streamId);
    expect(expected.length).toBeGreaterThan(10);
    expect(await storedEvents(store, encoded.report.streamId)).toEqual(expected);
    const integrity = await verifyStreamIntegrity(store, encoded.report.streamId);
    expect(integrity.findings).toEqual([]);
    expect(integrity.events).toBe(expected.length);
  });

  it('writes nothing when the stream appeared meanwhile (the append expects no stream)', async () => {
    const prepared = prepareSessionImport(readPiFixture(FIXTURES[0]!));
    const encoded = await encodeNewSessionImport(prepared, options);
    const store = openStore('raced.db');
    await writeSessionImport(store, prepared, options);
    const before = await storedEvents(store, encoded.report.streamId);
    await expect(
      store.appendEncoded(encoded.report.streamId, encoded.events.slice(1), {
        expectedRevision: 'no_stream',
      }),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await storedEvents(store, encoded.report.streamId)).toEqual(before);
  });

  it('refuses a part of a file, which only extends a stored session', async () => {
    const prepared = { ...prepareSessionImport(readPiFixture(FIXTURES[0]!)), fromEntry: 1 };
    await expect(encodeNewSessionImport(prepared, options)).rejects.toBeInstanceOf(RangeError);
  });
});
