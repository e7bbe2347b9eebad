// One session cannot grow past STRATA_MAX_SESSION_ENTRIES (issue 11): the engine's caches weigh
// an entry by its text, and a session heavier than them would be read and folded whole on every
// command. Appends and imports that would pass the bound are refused whole, over real HTTP.
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { problemOf, startHttpEngine, type HttpHarness } from './http-harness';

describe('the bound on one session', () => {
  let engine: HttpHarness;
  const sessionId = 'size-bounded';
  const builder = session({ sessionId, idPrefix: 'big' });
  // each entry weighs 1 + 20,000 / 2,048 = 10 (its other strings are a few dozen characters)
  for (let turn = 0; turn < 4; turn += 1) builder.user(`${turn}${'x'.repeat(20_000)}`);

  beforeAll(async () => {
    engine = await startHttpEngine({ environment: { STRATA_MAX_SESSION_ENTRIES: '30' } });
    const started = await engine.request('POST', '/sessions', { body: { sessionId, cwd: '/work' } });
    expect(started.status).toBe(201);
  });
  afterAll(() => engine.close());

  it('accepts appends up to the bound, then refuses the one past it whole with 413 session_too_large', async () => {
    const first = await engine.request('POST', `/sessions/${sessionId}/entries`, {
      body: { entries: builder.entries.slice(0, 2) },
    });
    expect(first.status).toBe(200);
    const third = await engine.request('POST', `/sessions/${sessionId}/entries`, {
      body: { entries: builder.entries.slice(2, 3) },
    });
    expect(third.status).toBe(200);

    const fourth = await engine.request('POST', `/sessions/${sessionId}/entries`, {
      body: { entries: builder.entries.slice(3) },
    });
    expect(fourth.status).toBe(413);
    expect(problemOf(fourth)).toMatchObject({
      code: 'payload_too_large',
      reason: 'session_too_large',
      weight: 40,
      maxWeight: 30,
    });

    const entries = await engine.request('GET', `/sessions/${sessionId}/entries`);
    expect(entries.body).toMatchObject({ total: 3, leafId: builder.entries[2]!.id });
  });

  it('refuses a label on a session at the bound too', async () => {
    const response = await engine.request('POST', `/sessions/${sessionId}/labels`, {
      body: { targetId: builder.entries[0]!.id, label: 'one more' },
    });
    expect(response.status).toBe(413);
    expect(problemOf(response)).toMatchObject({ reason: 'session_too_large', weight: 31, maxWeight: 30 });
  });

  it('refuses an import heavier than the bound whole, and stores nothing of it', async () => {
    const heavy = session({ sessionId: 'size-import' });
    for (let turn = 0; turn < 4; turn += 1) heavy.user(`${turn}${'y'.repeat(20_000)}`);
    const response = await engine.request('POST', '/sessions/import', {
      rawBody: serializeSessionFile(heavy.header, heavy.entries),
      contentType: 'application/x-ndjson',
    });
    expect(response.status).toBe(413);
    expect(problemOf(response)).toMatchObject({ reason: 'session_too_large', weight: 40, maxWeight: 30 });
    expect((await engine.request('GET', '/sessions/size-import')).status).toBe(404);
  });

  it('still takes small entries in other sessions', async () => {
    const other = session({ sessionId: 'size-small' }).user('hello');
    await engine.seed(other.header, other.entries);
    const read = await engine.request('GET', '/sessions/size-small/entries');
    expect(read.status).toBe(200);
  });
});
