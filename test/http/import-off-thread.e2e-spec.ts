// A large import is parsed, checked, sealed and encoded on a worker thread (issue 22 item 2):
// while one tenant's 60 MB session file is imported, the engine keeps answering `/health` on its
// event loop, and the import stores every entry with its hash chain intact. The health probe
// runs in this process, on the engine's own event loop: an import holding that loop would
// answer no probe until it ended.
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { startHttpEngine, type HttpHarness } from './http-harness';

describe('a 60 MB import beside other requests', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine();
  });
  afterAll(() => engine.close());

  async function encodedImports(): Promise<number> {
    const metrics = await engine.request('GET', '/metrics');
    const line = /^strata_worker_tasks_total\{outcome="ok",task="import_encode"\} (\d+)$/m.exec(metrics.text);
    return Number(line?.[1] ?? 0);
  }

  it('keeps /health answering while the file is imported, and stores it whole', async () => {
    const sessionId = 'sixty-megabytes';
    const builder = session({ sessionId, idPrefix: 'mb' });
    // 120 turns of 500,000 characters: one-character runs, as a file of long tool outputs is
    for (let turn = 0; turn < 120; turn += 1)
      builder.user(String.fromCharCode(97 + (turn % 26)).repeat(500_000));
    const file = serializeSessionFile(builder.header, builder.entries);
    expect(file.length).toBeGreaterThan(60_000_000);

    const encodedBefore = await encodedImports();
    let importing = true;
    const imported = engine
      .request('POST', '/sessions/import', { rawBody: file, contentType: 'application/x-ndjson' })
      .finally(() => {
        importing = false;
      });
    const healthDuringImport: number[] = [];
    while (importing) {
      const health = await engine.request('GET', '/health');
      if (importing) healthDuringImport.push(health.status);
    }
    const response = await imported;
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ sessionId, outcome: 'imported', entryCount: 120 });
    // the probe was answered again and again while the import ran, never refused
    expect(healthDuringImport.length).toBeGreaterThanOrEqual(10);
    expect(new Set(healthDuringImport)).toEqual(new Set([200]));
    // and the file was read, checked and sealed on a worker thread
    expect(await encodedImports()).toBe(encodedBefore + 1);

    const verified = await engine.request('GET', `/sessions/${sessionId}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ ok: true });
    const entries = await engine.request('GET', `/sessions/${sessionId}/entries?limit=1`);
    expect(entries.body).toMatchObject({ total: 120 });
  });
});
