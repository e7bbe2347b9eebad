// Issue 26, item 5: an engine on an EventStoreDB / KurrentDB node whose maximum append size is
// smaller than a request's entries answers a clear 413 naming the bound, and stores nothing of it;
// an imported session file larger than the bound is written in parts the node takes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { startHttpEngine, type HttpHarness } from './http-harness';

const MAX_APPEND_BYTES = 64 * 1024;

describe('given an engine on a node that takes at most 64 KiB in one append', () => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-append-size-'));
  let server: EsdbTestServer;
  let engine: HttpHarness;

  beforeAll(async () => {
    server = await startEsdbTestServer({ maxAppendBytes: MAX_APPEND_BYTES });
    engine = await startHttpEngine({
      directory,
      environment: {
        STRATA_STORE: server.connectionString.replace(/^esdb:/, 'kurrentdb:'),
        STRATA_PROJECTIONS_DB: join(directory, 'projections.db'),
      },
    });
  });

  afterAll(async () => {
    await engine.close();
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers 413 append_too_large with the bound for a larger append, and stores nothing of it', async () => {
    expect(
      (await engine.request('POST', '/sessions', { body: { sessionId: 'big', cwd: '/w' } })).status,
    ).toBe(201);
    const small = session({ sessionId: 'big' }).user('a small question');
    const fits = await engine.request('POST', '/sessions/big/entries', { body: { entries: small.entries } });
    expect(fits.status).toBe(200);
    const leafId = small.entries.at(-1)!.id;
    const large = session({ sessionId: 'big', idPrefix: 'large' }).user('x'.repeat(2 * MAX_APPEND_BYTES));
    const refused = await engine.request('POST', '/sessions/big/entries', {
      body: { entries: large.entries.map((entry) => ({ ...entry, parentId: leafId })) },
    });
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({
      code: 'payload_too_large',
      reason: 'append_too_large',
      maxAppendBytes: MAX_APPEND_BYTES,
    });
    const detail = (await engine.request('GET', '/sessions/big')).body as { leafId: string };
    expect(detail.leafId).toBe(leafId);
  });

  it('imports a session file larger than the bound in parts, whole and verified, and again writes nothing', async () => {
    let builder = session({ sessionId: 'long-import' });
    for (let turn = 0; turn < 40; turn += 1) {
      builder = builder
        .user(`question ${turn} ${'q'.repeat(1_500)}`)
        .assistant(`answer ${turn} ${'a'.repeat(1_500)}`);
    }
    const file = serializeSessionFile(builder.header, builder.entries);
    expect(Buffer.byteLength(file)).toBeGreaterThan(2 * MAX_APPEND_BYTES);
    const importFile = () =>
      engine.request('POST', '/sessions/import', { rawBody: file, contentType: 'application/x-ndjson' });
    const imported = await importFile();
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ outcome: 'imported', entryCount: 80 });
    expect((await engine.request('GET', '/sessions/long-import/export')).text).toBe(file);
    const verified = await engine.request('GET', '/sessions/long-import/verify');
    expect(verified.body).toMatchObject({ ok: true });
    const again = await importFile();
    expect(again.body).toMatchObject({ outcome: 'unchanged', eventsWritten: 0 });
  });
});
