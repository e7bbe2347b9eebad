// End to end over real HTTP (issue 11, finding 7 in part): entry and header timestamps are
// ISO 8601 date-times at append and import, and a compaction entry must keep from an entry on
// its own path; both are refused with a 400 naming the field (or the line) and nothing is
// written. Timestamps an older engine stored in another form stay readable.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeSessionFile, type SessionEntry } from '@strata/session';
import { session } from '@strata/testing';
import { problemOf, startHttpEngine, type ApiResponse, type HttpHarness } from './http-harness';
import { writeRecordedSession } from './recorded-sessions';

// e0001 user, e0002 assistant, e0003 user, e0004 assistant; then e0005 user on a branch from e0002.
const builder = session({ sessionId: 'rules-target' })
  .user('Hello')
  .assistant('Hi.')
  .user('Edit the file')
  .assistant('Done.')
  .branchFrom('e0002')
  .user('Another way');
const sessionId = builder.header.id;

function compaction(id: string, parentId: string, firstKeptEntryId: string): Record<string, unknown> {
  return {
    type: 'compaction',
    id,
    parentId,
    timestamp: '2026-01-01T00:10:00.000Z',
    summary: 'What happened so far.',
    firstKeptEntryId,
    tokensBefore: 1200,
  };
}

function custom(id: string, timestamp: string): Record<string, unknown> {
  return { type: 'custom', id, parentId: 'e0004', timestamp, customType: 'test/timestamp' };
}

describe('entry rules at append and import', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine();
    await engine.seed(builder.header, builder.entries);
  });

  afterAll(() => engine.close());

  const revision = async (): Promise<string> =>
    ((await engine.request('GET', `/sessions/${sessionId}`)).body as { revision: string }).revision;

  const append = (entries: readonly unknown[]): Promise<ApiResponse> =>
    engine.request('POST', `/sessions/${sessionId}/entries`, { body: { entries } });

  describe('timestamps', () => {
    it.each([
      ['empty', ''],
      ['a word', 'yesterday'],
      ['a date without a time', '2025-12-09'],
      ['a time without a zone', '2025-12-09T00:53:29'],
      ['a space for the T', '2025-12-09 00:53:29Z'],
      ['a month 13', '2025-13-01T00:00:00.000Z'],
      ['February 30', '2025-02-30T00:00:00.000Z'],
      ['milliseconds as text', '1765241609825'],
      ['an HTTP date', 'Tue, 09 Dec 2025 00:53:29 GMT'],
    ])('refuses an entry whose timestamp is %s (400, nothing written)', async (_what, timestamp) => {
      const before = await revision();
      const response = await append([custom('stamped', timestamp)]);
      expect(response.status).toBe(400);
      expect(problemOf(response)).toMatchObject({ code: 'validation' });
      expect(problemOf(response).errors).toEqual([
        expect.objectContaining({ path: 'body.entries.0.timestamp' }),
      ]);
      expect(await revision()).toBe(before);
    });

    it('accepts the forms pi writes and offsets, with any precision of seconds', async () => {
      const response = await append([
        custom('utc-millis', '2026-01-01T00:05:00.000Z'),
        { ...custom('utc-seconds', '2026-01-01T00:05:01Z'), parentId: 'utc-millis' },
        { ...custom('offset', '2026-01-01T01:05:02+01:00'), parentId: 'utc-seconds' },
        { ...custom('negative-offset', '2025-12-31T19:35:03.5-05:30'), parentId: 'offset' },
        { ...custom('nanoseconds', '2026-01-01T00:05:04.123456789Z'), parentId: 'negative-offset' },
      ]);
      expect(response.status).toBe(200);
    });

    it('refuses a session file whose header or entry timestamp is not ISO 8601, naming the line', async () => {
      const file = session({ sessionId: 'rules-import' }).user('Hello').assistant('Hi.');
      const badHeader = serializeSessionFile({ ...file.header, timestamp: 'now' }, file.entries);
      const badEntry = serializeSessionFile(file.header, [
        file.entries[0]!,
        { ...file.entries[1]!, timestamp: '2026-01-01 00:00:02' },
      ]);
      for (const [text, line, where] of [
        [badHeader, 1, 'session header: schema violation at timestamp'],
        [badEntry, 3, 'schema violation at timestamp'],
      ] as const) {
        const response = await engine.request('POST', '/sessions/import', {
          rawBody: text,
          contentType: 'application/x-ndjson',
        });
        expect(response.status).toBe(400);
        expect(problemOf(response)).toMatchObject({ code: 'validation', line });
        expect(problemOf(response).detail).toContain(where);
      }
      expect((await engine.request('GET', '/sessions/rules-import')).status).toBe(404);
    });
  });

  describe("a compaction's first kept entry", () => {
    it.each([
      ['an entry that does not exist', compaction('c-missing', 'e0004', 'no-such-entry')],
      ['an entry on another branch', compaction('c-other-branch', 'e0004', 'e0005')],
      ['the compaction itself', compaction('c-itself', 'e0004', 'c-itself')],
      ['an entry appended after it in the same batch', compaction('c-later', 'e0004', 'c-later-child')],
    ])('refuses a compaction keeping from %s (400, nothing written)', async (_what, entry) => {
      const before = await revision();
      const response = await append([
        entry,
        { ...custom('c-later-child', '2026-01-01T00:11:00.000Z'), parentId: entry['id'] },
      ]);
      expect(response.status).toBe(400);
      expect(problemOf(response)).toMatchObject({ code: 'validation' });
      expect(problemOf(response).detail).toMatch(
        new RegExp(
          `first kept entry ${String(entry['firstKeptEntryId'])} of compaction ${String(entry['id'])} is not an entry on its path`,
        ),
      );
      expect(await revision()).toBe(before);
    });

    it('accepts a compaction keeping from an entry on its path, also one earlier in the same batch', async () => {
      const first = await append([compaction('c-on-path', 'e0004', 'e0003')]);
      expect(first.status).toBe(200);
      const batch = await append([
        { ...custom('b-1', '2026-01-01T00:12:00.000Z'), parentId: 'c-on-path' },
        compaction('c-in-batch', 'b-1', 'b-1'),
      ]);
      expect(batch.status).toBe(200);
      const context = await engine.request('GET', `/sessions/${sessionId}/context`);
      expect(context.body).toMatchObject({ compactionId: 'c-in-batch' });
    });

    it('refuses, in a strict import, a compaction keeping from off its path, naming the line; a lenient one leaves it out', async () => {
      const file = session({ sessionId: 'rules-compaction-import' }).user('Hello').assistant('Hi.');
      const entries = [...file.entries, compaction('c-stray', 'e0002', 'nowhere') as SessionEntry];
      const text = serializeSessionFile(file.header, entries);
      const strict = await engine.request('POST', '/sessions/import', {
        rawBody: text,
        contentType: 'application/x-ndjson',
      });
      expect(strict.status).toBe(400);
      expect(problemOf(strict)).toMatchObject({ code: 'validation', line: 4, reason: 'invalid-reference' });
      expect(problemOf(strict).detail).toMatch(/compaction c-stray keeps from nowhere/);
      expect((await engine.request('GET', '/sessions/rules-compaction-import')).status).toBe(404);

      const lenient = await engine.request('POST', '/sessions/import?lenient=true', {
        rawBody: text,
        contentType: 'application/x-ndjson',
      });
      expect(lenient.status).toBe(201);
      expect(lenient.body).toMatchObject({
        entryCount: 2,
        skipped: [expect.objectContaining({ line: 4, code: 'invalid-reference' })],
      });
    });
  });
});

describe('an engine over timestamps an older engine stored in other forms', () => {
  let directory: string;
  let engine: HttpHarness;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'strata-timestamps-'));
    const recorded = session({ sessionId: 'recorded-timestamps' })
      .user('Hello')
      .assistant('Hi.')
      .customMessage('note', 'A note.');
    await writeRecordedSession(
      directory,
      { ...recorded.header, timestamp: 'a while ago' },
      recorded.entries.map((entry, index) => ({
        ...entry,
        timestamp: ['', 'yesterday', 'not a date'][index] ?? '',
      })),
    );
    engine = await startHttpEngine({ directory });
  });

  afterAll(async () => {
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads, exports and continues the session as recorded', async () => {
    expect((await engine.request('GET', '/ready')).status).toBe(200);
    const detail = await engine.request('GET', '/sessions/recorded-timestamps');
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ header: { timestamp: 'a while ago' } });
    const context = await engine.request('GET', '/sessions/recorded-timestamps/context');
    expect(context.status).toBe(200);
    expect(
      (context.body as { messages: { timestamp: number }[] }).messages.map((message) => message.timestamp),
    ).toEqual([expect.any(Number), expect.any(Number), 0]);
    expect((await engine.request('GET', '/sessions/recorded-timestamps/tree')).status).toBe(200);
    const exported = await engine.request('GET', '/sessions/recorded-timestamps/export');
    expect(exported.status).toBe(200);
    expect(exported.text).toContain('"timestamp":"not a date"');
    const next = await engine.request('POST', '/sessions/recorded-timestamps/entries', {
      body: { entries: [{ ...custom('next', '2026-01-01T00:20:00.000Z'), parentId: 'e0003' }] },
    });
    expect(next.status).toBe(200);
  });
});

describe('an engine over ids an older engine stored outside the identifier rule', () => {
  it('serves the session as recorded and goes on appending to it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-ids-'));
    const oddIds = ['an id\nwith a line break', 'x'.repeat(600), '..', 'nul\u0000inside'];
    try {
      const recorded = session({ sessionId: 'recorded-ids' }).user('Hello');
      const odd = oddIds.map((id, index) => ({
        ...custom(id, `2026-01-01T00:0${index + 1}:00.000Z`),
        parentId: index === 0 ? 'e0001' : oddIds[index - 1]!,
      })) as SessionEntry[];
      await writeRecordedSession(directory, recorded.header, [...recorded.entries, ...odd]);
      const engine = await startHttpEngine({ directory });
      try {
        expect((await engine.request('GET', '/ready')).status).toBe(200);
        const tree = await engine.request('GET', '/sessions/recorded-ids/tree');
        expect(tree.status).toBe(200);
        expect((tree.body as { nodes: { id: string }[] }).nodes.map((node) => node.id)).toEqual([
          'e0001',
          ...oddIds,
        ]);
        expect((await engine.request('GET', '/sessions/recorded-ids/context')).body).toMatchObject({
          leafId: oddIds[3],
        });
        expect((await engine.request('GET', '/sessions/recorded-ids/verify')).body).toMatchObject({
          ok: true,
        });
        const exported = await engine.request('GET', '/sessions/recorded-ids/export');
        expect(exported.text.trimEnd().split('\n')).toHaveLength(1 + 1 + oddIds.length);
        const next = await engine.request('POST', '/sessions/recorded-ids/entries', {
          body: { entries: [{ ...custom('next', '2026-01-01T00:20:00.000Z'), parentId: 'e0001' }] },
        });
        expect(next.status).toBe(200);
      } finally {
        await engine.close();
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
