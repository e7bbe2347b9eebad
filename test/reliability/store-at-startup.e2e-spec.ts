// `npm start` against an EventStoreDB node that is not listening yet (issue 6, part 2; what
// docker compose does when both start together): the engine process waits, saying so on
// stderr, and serves once the node answers; when the node never comes within
// STRATA_STORE_WAIT_MS it exits 1 with a message naming the store, not a stack trace.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import { startEngineProcess, type EngineProcess } from './support/engine-process';

jest.setTimeout(120_000);

describe('the engine started before its EventStoreDB node', () => {
  let directory: string;
  let port: number;
  let server: EsdbTestServer | undefined;
  let engine: EngineProcess | undefined;

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'strata-store-wait-'));
    port = await freeLoopbackPort();
  });

  afterEach(async () => {
    await engine?.kill('SIGTERM');
    engine = undefined;
    await server?.stop();
    server = undefined;
    rmSync(directory, { recursive: true, force: true });
  });

  it('waits, saying so, and serves once the node is up', async () => {
    let nodeStarting: Promise<EsdbTestServer> | undefined;
    engine = await startEngineProcess({
      directory,
      environment: {
        STRATA_STORE: `esdb://127.0.0.1:${port}?tls=false`,
        STRATA_PROJECTIONS_DB: join(directory, 'projections.db'),
        STRATA_STORE_WAIT_MS: '60000',
      },
      onStderr: (stderr) => {
        if (nodeStarting === undefined && stderr.includes('trying again in 500 ms')) {
          nodeStarting = startEsdbTestServer({ port });
        }
      },
    });
    server = await nodeStarting;
    expect(engine.stderr()).toMatch(
      new RegExp(
        `waiting for the event store \\(EventStoreDB esdb://127\\.0\\.0\\.1:${port}\\?tls=false\\): unavailable; trying again in 250 ms`,
      ),
    );
    for (const line of ['API:', 'documentation:', 'event stream:', 'audit viewer:', 'health:'])
      expect(engine.stdout()).toContain(line);
    expect(engine.stdout()).toContain(`store:          EventStoreDB esdb://127.0.0.1:${port}?tls=false`);
    expect(engine.stdout()).toMatch(/audit viewer: +http:\/\/127\.0\.0\.1:\d+\/ui/);
    const ready = await engine.request('GET', '/ready');
    expect(ready.status).toBe(200);
    const started = await engine.request('POST', '/sessions', { sessionId: 'after-the-wait', cwd: '/work' });
    expect(started.status).toBe(201);
  });

  it('exits 1 naming the store when the node does not come in time', async () => {
    const failure = await startEngineProcess({
      directory,
      environment: {
        STRATA_STORE: `esdb://127.0.0.1:${port}?tls=false`,
        STRATA_PROJECTIONS_DB: join(directory, 'projections.db'),
        STRATA_STORE_WAIT_MS: '1000',
      },
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toContain('ended (1) before it listened');
    expect(message).toMatch(
      /could not be reached after \d+ tries in \d+ ms \(last: unavailable\); set STRATA_STORE_WAIT_MS/,
    );
    expect(message).not.toContain('    at ');
  });
});
