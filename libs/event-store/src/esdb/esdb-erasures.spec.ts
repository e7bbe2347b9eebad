// The EventStoreDB adapter's erasure records over the protocol test server: read incrementally
// (each read asks only for the records appended since the last), and complete for every caller,
// also for one that arrives while another read runs.
import { EventStoreDBClient } from '@eventstore/db-client';
import { startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import type { ErasureRecord } from '../port';
import { ErasureRecords, recordErasure } from './esdb-erasures';
import { ERASURE_STREAM } from './esdb-mapping';

function erasureOf(streamId: string): ErasureRecord {
  return {
    streamId,
    actor: 'dpo',
    reason: 'request',
    tenant: 'acme',
    erasedAt: '2026-12-04T00:00:00.000Z',
    eventCount: 3,
  };
}

describe('ErasureRecords over the protocol test server', () => {
  let server: EsdbTestServer;
  let client: EventStoreDBClient;

  beforeEach(async () => {
    server = await startEsdbTestServer();
    client = EventStoreDBClient.connectionString(server.connectionString);
  });

  afterEach(async () => {
    await client.dispose();
    await server.stop();
  });

  it('answers none before any erasure', async () => {
    expect(await new ErasureRecords(client).all()).toEqual([]);
  });

  it('reads only the records appended since its last read, and one record per stream', async () => {
    const records = new ErasureRecords(client);
    const reads = jest.spyOn(client, 'readStream');
    for (const id of ['session-a', 'session-b', 'session-c']) await recordErasure(client, erasureOf(id));
    expect((await records.all()).map((record) => record.streamId)).toEqual([
      'session-a',
      'session-b',
      'session-c',
    ]);
    // a retry of an erasure appends its record under the same event id again: one record stands
    await recordErasure(client, { ...erasureOf('session-b'), actor: 'retry' });
    await recordErasure(client, erasureOf('session-d'));
    const all = await records.all();
    expect(all.map((record) => [record.streamId, record.actor])).toEqual([
      ['session-a', 'dpo'],
      ['session-b', 'dpo'],
      ['session-c', 'dpo'],
      ['session-d', 'dpo'],
    ]);
    expect(await records.streamIds()).toEqual(new Set(['session-a', 'session-b', 'session-c', 'session-d']));
    const asked = reads.mock.calls
      .filter(([stream]) => stream === ERASURE_STREAM)
      .map(([, options]) => options?.fromRevision);
    // the retry was taken as the append already made: four records, the next read from revision 4
    expect(asked).toEqual([0n, 3n, 4n]);
  });

  it('gives a caller that arrives while a read runs every record appended before its call', async () => {
    const records = new ErasureRecords(client);
    await recordErasure(client, erasureOf('session-a'));
    const first = records.all();
    await recordErasure(client, erasureOf('session-b'));
    const [second, third] = await Promise.all([records.all(), records.all()]);
    expect((await first).map((record) => record.streamId)).toContain('session-a');
    for (const answer of [second, third])
      expect(answer.map((record) => record.streamId)).toEqual(['session-a', 'session-b']);
  });
});
