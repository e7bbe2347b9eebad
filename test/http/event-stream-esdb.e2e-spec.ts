// End to end over real HTTP on EventStoreDB (through the protocol test server): the engine's
// store is `esdb://…`, its projections in a local SQLite file. Two independent `strata tail`
// subscribers, each with its own checkpoint, get every session_compact exactly once across their
// own restarts and a restart of the engine; a resumed SSE stream neither loses nor repeats events.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStoreDBClient } from '@eventstore/db-client';
import { startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import { tailEvents } from '../../apps/cli/src/commands/tail.command';
import {
  followCompactions,
  type CompactionNotice,
} from '../../apps/engine/src/events-stream/examples/esdb-compaction-subscriber';
import { recordingIo } from '../../apps/cli/src/testing-io';
import { compactOne, startHttpEngine, type HttpHarness } from './http-harness';
import { openEventStream } from './sse-client';

const settings = { compaction: { keepRecentTokens: 250 } };

describe('given an engine on EventStoreDB', () => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-http-esdb-'));
  let server: EsdbTestServer;
  let engine: HttpHarness;
  let environment: Record<string, string>;

  beforeAll(async () => {
    server = await startEsdbTestServer();
    environment = {
      STRATA_STORE: server.connectionString,
      STRATA_PROJECTIONS_DB: join(directory, 'projections.db'),
    };
    engine = await startHttpEngine({ settings, environment, directory });
  });

  afterAll(async () => {
    await engine.close();
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('gives two checkpointed subscribers every session_compact exactly once across restarts', async () => {
    const run = async (name: string, maxEvents: number): Promise<string[]> => {
      const io = recordingIo();
      await tailEvents(
        {
          url: engine.url,
          types: 'session_compact',
          from: 'start',
          checkpointFile: join(directory, `${name}.checkpoint`),
          maxEvents,
        },
        io,
        new AbortController().signal,
      );
      return io
        .out()
        .trim()
        .split('\n')
        .map(
          (line) =>
            (JSON.parse(line) as { data: { compactionEntry: { id: string } } }).data.compactionEntry.id,
        );
    };
    const compactions = [
      await compactOne(engine, 'esdb-1', { trigger: 'threshold' }),
      await compactOne(engine, 'esdb-2', { trigger: 'threshold' }),
    ];
    const alpha = await run('alpha', 1);
    const beta = await run('beta', 2);

    await engine.close();
    engine = await startHttpEngine({ settings, environment, directory });
    compactions.push(await compactOne(engine, 'esdb-3', { trigger: 'threshold' }));
    alpha.push(...(await run('alpha', 2)));
    beta.push(...(await run('beta', 1)));

    expect(alpha).toEqual(compactions);
    expect(beta).toEqual(compactions);
  });

  it('resumes a stream after any event id, also between the two events of an automatic attempt', async () => {
    const full = await openEventStream(`${engine.url}/events?from=start`);
    await full.waitForComment((comment) => comment.startsWith('caught up'));
    const all = [...full.events];
    full.close();
    expect(all.some((event) => event.id?.endsWith('.1'))).toBe(true);
    for (const cut of [
      1,
      Math.floor(all.length / 2),
      all.findIndex((event) => event.id?.endsWith('.1')) - 1,
    ]) {
      const resumed = await openEventStream(`${engine.url}/events`, { 'last-event-id': all[cut]!.id! });
      await resumed.waitForComment((comment) => comment.startsWith('caught up'));
      expect(resumed.events.map((event) => event.id)).toEqual(all.slice(cut + 1).map((event) => event.id));
      resumed.close();
    }
  });

  it('lets a service follow compactions natively (the runnable example), at the SSE positions', async () => {
    const client = EventStoreDBClient.connectionString(server.connectionString);
    const notices: CompactionNotice[] = [];
    const checkpointFile = join(directory, 'native.checkpoint');
    try {
      await followCompactions(client, {
        checkpointFile,
        maxEvents: 2,
        onCompaction: (notice) => void notices.push(notice),
      });
      await followCompactions(client, {
        checkpointFile,
        maxEvents: 1,
        onCompaction: (notice) => void notices.push(notice),
      });
    } finally {
      await client.dispose();
    }
    const stream = await openEventStream(`${engine.url}/events?from=start&types=session_compact`);
    await stream.waitForComment((comment) => comment.startsWith('caught up'));
    stream.close();
    expect(notices.map((notice) => notice.position)).toEqual(stream.events.map((event) => event.id));
    expect(notices.map((notice) => notice.sessionId)).toEqual(['esdb-1', 'esdb-2', 'esdb-3']);
    expect(notices[0]).toMatchObject({
      tenant: 'default',
      trigger: 'threshold',
      summary: expect.any(String),
    });
  });

  it('serves the catalog from projections that resumed after the restart', async () => {
    const list = await engine.request('GET', '/sessions');
    expect(
      (list.body as { items: { sessionId: string }[] }).items.map((item) => item.sessionId).sort(),
    ).toEqual(['esdb-1', 'esdb-2', 'esdb-3']);
    const ready = await engine.request('GET', '/ready');
    expect(ready.body).toMatchObject({ status: 'ready' });
  });
});
