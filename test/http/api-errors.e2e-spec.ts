// End to end over real HTTP: the closed set of errors. Every failure answers
// application/problem+json with a stable code — bad bodies and queries (400), unknown sessions,
// entries and routes (404), stale writers and clashing imports (409), oversize bodies (413).
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { problemOf, startHttpEngine, type HttpHarness } from './http-harness';

const builder = session({ sessionId: 'errors-1' })
  .user('Hello')
  .assistant('Hi there.')
  .user('Edit the file')
  .assistant('Done.');
const sessionId = builder.header.id;

describe('given an engine with small body limits and one session', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({
      environment: { STRATA_BODY_LIMIT: '2kb', STRATA_IMPORT_BODY_LIMIT: '4kb' },
    });
    await engine.seed(builder.header, builder.entries);
  });

  afterAll(() => engine.close());

  describe('bad bodies and queries answer 400 validation', () => {
    it('refuses a body that is not JSON', async () => {
      const response = await engine.request('POST', '/sessions', {
        rawBody: '{"cwd": ',
        contentType: 'application/json',
      });
      expect(response.status).toBe(400);
      expect(problemOf(response)).toMatchObject({ code: 'validation', status: 400, instance: '/sessions' });
      expect(problemOf(response).detail).toMatch(/not JSON/);
    });

    it('names each invalid field of a body, unknown fields included', async () => {
      const response = await engine.request('POST', '/sessions', { body: { title: 7, colour: 'red' } });
      expect(response.status).toBe(400);
      const paths = (problemOf(response).errors as { path: string }[]).map((error) => error.path);
      expect(paths).toEqual(expect.arrayContaining(['body.cwd', 'body.title', 'body']));
    });

    it('refuses a body sent as another media type', async () => {
      const response = await engine.request('POST', '/sessions', {
        rawBody: 'cwd=/x',
        contentType: 'text/plain',
      });
      expect(response.status).toBe(400);
      expect(problemOf(response).detail).toMatch(/application\/json/);
    });

    it('refuses entries that break the entry schema, and an empty batch', async () => {
      const broken = await engine.request('POST', `/sessions/${sessionId}/entries`, {
        body: { entries: [{ type: 'message', parentId: null, timestamp: 'now' }] },
      });
      expect(broken.status).toBe(400);
      expect((problemOf(broken).errors as { path: string }[])[0]?.path).toMatch(/^body\.entries\.0/);
      const empty = await engine.request('POST', `/sessions/${sessionId}/entries`, { body: { entries: [] } });
      expect(problemOf(empty)).toMatchObject({ code: 'validation' });
    });

    it('refuses bad query values, unknown query names and mixed paging', async () => {
      const limit = await engine.request('GET', '/sessions?limit=0');
      expect((problemOf(limit).errors as { path: string }[])[0]?.path).toBe('query.limit');
      expect(problemOf(await engine.request('GET', '/sessions?colour=red')).code).toBe('validation');
      expect(problemOf(await engine.request('GET', '/sessions?offset=1&cursor=abc')).code).toBe('validation');
      expect(problemOf(await engine.request('GET', '/sessions?cursor=not-a-cursor')).code).toBe('validation');
      expect(
        problemOf(await engine.request('GET', `/sessions/${sessionId}/context?asOf=yesterday`)).code,
      ).toBe('validation');
      expect(problemOf(await engine.request('GET', `/sessions/${sessionId}/context?format=html`)).code).toBe(
        'validation',
      );
    });

    it('refuses an invalid per-session settings entry before it reaches the log', async () => {
      const response = await engine.request('POST', `/sessions/${sessionId}/entries`, {
        body: {
          entries: [
            {
              type: 'custom',
              id: 'settings-1',
              parentId: builder.lastId,
              timestamp: '2026-01-01T00:00:00.000Z',
              customType: 'strata.settings',
              data: { compaction: { reserveTokens: -5 } },
            },
          ],
        },
      });
      expect(response.status).toBe(400);
      expect(problemOf(response).code).toBe('validation');
    });

    it('refuses a session file that is not one, naming the line', async () => {
      const response = await engine.request('POST', '/sessions/import', {
        rawBody:
          '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\nnot json\n',
        contentType: 'application/x-ndjson',
      });
      expect(response.status).toBe(400);
      expect(problemOf(response)).toMatchObject({ code: 'validation', line: 2 });
      const empty = await engine.request('POST', '/sessions/import', {
        rawBody: '',
        contentType: 'application/x-ndjson',
      });
      expect(problemOf(empty).code).toBe('validation');
    });
  });

  describe('unknown sessions, entries and routes answer 404 not_found', () => {
    const unknown = 'no-such-session';

    it.each([
      ['GET', `/sessions/${unknown}`],
      ['GET', `/sessions/${unknown}/context`],
      ['GET', `/sessions/${unknown}/tree`],
      ['GET', `/sessions/${unknown}/entries`],
      ['GET', `/sessions/${unknown}/attempts`],
      ['GET', `/sessions/${unknown}/export`],
      ['GET', `/sessions/${unknown}/verify`],
      ['GET', `/events?session=${unknown}`],
    ])('%s %s', async (method, path) => {
      const response = await engine.request(method, path);
      expect(response.status).toBe(404);
      expect(problemOf(response)).toMatchObject({ code: 'not_found', detail: 'session not found' });
    });

    it.each([
      ['/entries', { entries: builder.entries }],
      ['/compact', {}],
      ['/navigate', { targetId: 'e0001' }],
      ['/abort', {}],
      ['/labels', { targetId: 'e0001', label: 'x' }],
    ])('POST %s of an unknown session', async (suffix, body) => {
      const response = await engine.request('POST', `/sessions/${unknown}${suffix}`, { body });
      expect(response.status).toBe(404);
      expect(problemOf(response).code).toBe('not_found');
    });

    it('answers 404 for an unknown leaf, navigation target or label target', async () => {
      expect(problemOf(await engine.request('GET', `/sessions/${sessionId}/context?leaf=nope`)).code).toBe(
        'not_found',
      );
      expect(problemOf(await engine.request('GET', `/sessions/${sessionId}/entries?leaf=nope`)).code).toBe(
        'not_found',
      );
      const navigate = await engine.request('POST', `/sessions/${sessionId}/navigate`, {
        body: { targetId: 'nope' },
      });
      expect(problemOf(navigate).code).toBe('not_found');
      const label = await engine.request('POST', `/sessions/${sessionId}/labels`, {
        body: { targetId: 'nope', label: 'x' },
      });
      expect(problemOf(label).code).toBe('not_found');
    });

    it('answers 404 for an unknown route or method', async () => {
      expect(problemOf(await engine.request('GET', '/nowhere')).code).toBe('not_found');
      expect(problemOf(await engine.request('DELETE', '/sessions')).code).toBe('not_found');
    });
  });

  describe('stale writers and clashing imports answer 409 conflict', () => {
    it('refuses an append expecting an older revision or another leaf', async () => {
      const revision = await engine.request('POST', `/sessions/${sessionId}/entries`, {
        body: { entries: [], expectedRevision: '1' },
      });
      expect(revision.status).toBe(400);
      const next = session({ sessionId }).user('x');
      const entry = { ...next.entries[0]!, id: 'late-1', parentId: builder.lastId };
      const stale = await engine.request('POST', `/sessions/${sessionId}/entries`, {
        body: { entries: [entry], expectedRevision: '1' },
      });
      expect(stale.status).toBe(409);
      expect(problemOf(stale)).toMatchObject({ code: 'conflict' });
      const otherLeaf = await engine.request('POST', `/sessions/${sessionId}/entries`, {
        body: { entries: [entry], expectedLeafId: builder.entries[0]!.id },
      });
      expect(problemOf(otherLeaf).code).toBe('conflict');
    });

    it('refuses an entry id that the session already holds', async () => {
      const response = await engine.request('POST', `/sessions/${sessionId}/entries`, {
        body: { entries: [{ ...builder.entries[0]!, parentId: builder.lastId }] },
      });
      expect(response.status).toBe(409);
      expect(problemOf(response)).toMatchObject({ code: 'conflict', reason: 'already_exists' });
    });

    it('refuses to import a file whose session is stored with other content', async () => {
      const rewritten = session({ sessionId }).user('A different beginning').assistant('Indeed.');
      const response = await engine.request('POST', '/sessions/import', {
        rawBody: serializeSessionFile(rewritten.header, rewritten.entries),
        contentType: 'application/x-ndjson',
      });
      expect(response.status).toBe(409);
      expect(problemOf(response)).toMatchObject({ code: 'conflict', reason: 'import_conflict' });
    });
  });

  describe('bodies over the limit answer 413 payload_too_large', () => {
    it('refuses a JSON body over STRATA_BODY_LIMIT', async () => {
      const entry = {
        ...builder.entries[0]!,
        id: 'big-1',
        parentId: builder.lastId,
        message: { role: 'user', content: 'y'.repeat(3_000), timestamp: 1 },
      };
      const response = await engine.request('POST', `/sessions/${sessionId}/entries`, {
        body: { entries: [entry] },
      });
      expect(response.status).toBe(413);
      expect(problemOf(response)).toMatchObject({ code: 'payload_too_large', limitBytes: 2048 });
    });

    it('refuses a session file over STRATA_IMPORT_BODY_LIMIT, also when it is far over', async () => {
      const big = session({ sessionId: 'errors-big' }).user('z'.repeat(5_000));
      const text = serializeSessionFile(big.header, big.entries);
      const response = await engine.request('POST', '/sessions/import', {
        rawBody: text,
        contentType: 'application/x-ndjson',
      });
      expect(problemOf(response)).toMatchObject({ code: 'payload_too_large', limitBytes: 4096 });
      const huge = await engine.request('POST', '/sessions/import', {
        rawBody: text.repeat(10),
        contentType: 'application/x-ndjson',
      });
      expect(huge.status).toBe(413);
      const stored = await engine.request('GET', '/sessions/errors-big');
      expect(stored.status).toBe(404);
    });
  });
});
