// A large append's body is read on a worker thread (issue 22 item 2, append-body-work.ts): the
// thread parses and checks it and writes each entry's JSON text and canonical bytes, which the
// event loop splices into the event it seals and stores. What is stored, hashed and answered
// must be exactly what the event loop's own path gives: the stored text parses to the entry
// sent, every hash verifies from the stored text, an idempotent retry is recognised, and a bad
// body is refused with the same problems as a small one.
import { pseudoRandomLetters, session, type SessionBuilder } from '@strata/testing';
import { countO200kTokens, type PreparedTokenCounter } from '@strata/tokenizer';
import { TOKEN_COUNTER } from '../../apps/engine/src/shared/injection-tokens';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { OFF_LOOP_APPEND_BYTES } from '../../apps/engine/src/sessions/append-entries/append-body-work';
import { problemOf, startHttpEngine, type ApiResponse, type HttpHarness } from './http-harness';

function expectStatus(response: ApiResponse, status: number): void {
  if (response.status !== status)
    throw new Error(`expected ${status}, got ${response.status}: ${response.text.slice(0, 500)}`);
}

/** A text of about `length` characters with escapes, quotes, non-ASCII and a NUL in it. */
function awkwardText(length: number): string {
  const piece = 'line "quoted" \\ back\tslash ünïcödé 漢字 🙂 \u0000 nul\u2028sep\n';
  return piece.repeat(Math.ceil(length / piece.length)).slice(0, length);
}

describe('a large append read on a worker thread', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine();
  });
  afterAll(() => engine.close());

  async function appendBodiesRead(): Promise<number> {
    const metrics = await engine.request('GET', '/metrics');
    const line = /^strata_worker_tasks_total\{outcome="ok",task="append_body"\} (\d+)$/m.exec(metrics.text);
    return Number(line?.[1] ?? 0);
  }

  async function started(sessionId: string): Promise<SessionBuilder> {
    const builder = session({ sessionId }).user('Show me the log');
    await engine.seed(builder.header, builder.entries);
    return builder;
  }

  function storedData(sessionId: string): unknown[] {
    const database = new Database(join(engine.directory, 'strata.db'), { readonly: true });
    try {
      const rows = database
        .prepare(
          "SELECT data FROM events WHERE stream_id = ? AND type = 'EntryAppended' ORDER BY stream_revision",
        )
        .all(`session-${sessionId}`) as { data: string }[];
      return rows.map((row) => JSON.parse(row.data) as unknown);
    } finally {
      database.close();
    }
  }

  it('stores, hashes, answers and recognises again exactly the entries sent', async () => {
    const builder = await started('large-append');
    const text = awkwardText(OFF_LOOP_APPEND_BYTES * 2);
    const more = session({ sessionId: 'large-append', idPrefix: 'big' }).assistant(text).user('and then?');
    const entries = more.entries.map((entry, index) =>
      index === 0 ? { ...entry, parentId: builder.lastId } : entry,
    );
    const body = { entries, idempotencyKey: 'large-once' };
    const readBefore = await appendBodiesRead();

    const appended = await engine.request('POST', '/sessions/large-append/entries', { body });
    expectStatus(appended, 200);
    expect(appended.body).toMatchObject({
      alreadyAppended: false,
      entryIds: entries.map((entry) => entry.id),
    });
    expect(await appendBodiesRead()).toBe(readBefore + 1);

    // the text stored is the entries' JSON, and every hash verifies from that text
    // (an automatic compaction of the large text may follow them: only these entries are compared)
    const ids = new Set(entries.map((entry) => entry.id));
    const stored = storedData('large-append').filter((data) =>
      ids.has((data as { entry: { id: string } }).entry.id),
    );
    expect(stored).toEqual(entries.map((entry) => ({ entry })));
    const verified = await engine.request('GET', '/sessions/large-append/verify');
    expectStatus(verified, 200);
    expect(verified.body).toMatchObject({ ok: true });
    const read = await engine.request('GET', `/sessions/large-append/entries/${entries[0]!.id}`);
    expectStatus(read, 200);
    expect(JSON.stringify(read.body)).toContain(JSON.stringify(text));

    // the same request again is the same append (the key's digest covers the spliced entries)
    const again = await engine.request('POST', '/sessions/large-append/entries', { body });
    expectStatus(again, 200);
    expect(again.body).toMatchObject({ alreadyAppended: true, entryIds: entries.map((entry) => entry.id) });
    const changed = {
      ...body,
      entries: [
        { ...entries[0]!, message: { ...(entries[0] as { message: object }).message, stopReason: 'length' } },
        entries[1],
      ],
    };
    const mismatch = await engine.request('POST', '/sessions/large-append/entries', { body: changed });
    expect(problemOf(mismatch)).toMatchObject({ status: 409, reason: 'idempotency_mismatch' });
  });

  it('refuses a large bad body with the same problems as a small one', async () => {
    const builder = await started('large-refused');
    const bad = (text: string) => ({
      entries: [
        {
          type: 'message',
          id: 'x1',
          parentId: builder.lastId,
          timestamp: 'not a time',
          message: { role: 'user', content: text },
        },
      ],
    });
    const small = await engine.request('POST', '/sessions/large-refused/entries', { body: bad('short') });
    const large = await engine.request('POST', '/sessions/large-refused/entries', {
      body: bad('y'.repeat(OFF_LOOP_APPEND_BYTES)),
    });
    expect(problemOf(small).status).toBe(400);
    expect({ ...problemOf(large), instance: undefined }).toEqual({
      ...problemOf(small),
      instance: undefined,
    });

    const notJson = await engine.request('POST', '/sessions/large-refused/entries', {
      rawBody: `{"entries": [${'1,'.repeat(OFF_LOOP_APPEND_BYTES)}`,
      contentType: 'application/json',
    });
    expect(problemOf(notJson)).toMatchObject({ status: 400 });
    expect(problemOf(notJson).detail).toMatch(/^the body is not JSON/);
    const deep = await engine.request('POST', '/sessions/large-refused/entries', {
      rawBody: `${'['.repeat(OFF_LOOP_APPEND_BYTES / 2)}${']'.repeat(OFF_LOOP_APPEND_BYTES / 2)}`,
      contentType: 'application/json',
    });
    expect(problemOf(deep).detail).toMatch(/nests deeper than/);
    const notText = await engine.request('POST', '/sessions/large-refused/entries', {
      rawBody: `{"entries":"${'z'.repeat(OFF_LOOP_APPEND_BYTES)}`,
      contentType: 'text/plain',
    });
    expect(problemOf(notText).detail).toMatch(/must be application\/json/);
    // nothing was written by any of them
    expect(storedData('large-refused')).toHaveLength(1);
  });
});

describe('a large append read on a worker thread, with the o200k counter', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings: { tokenizer: 'o200k' } });
  });
  afterAll(() => engine.close());

  it('counts the long texts there, so that the engine counts none of them itself', async () => {
    const builder = session({ sessionId: 'large-counted' }).user('Read the file');
    await engine.seed(builder.header, builder.entries);
    const counter = engine.app.get<PreparedTokenCounter>(TOKEN_COUNTER);
    const before = counter.stats();
    const text = pseudoRandomLetters(OFF_LOOP_APPEND_BYTES, 7);
    const more = session({ sessionId: 'large-counted', idPrefix: 'c' }).assistant(text);
    const entries = more.entries.map((entry, index) =>
      index === 0 ? { ...entry, parentId: builder.lastId } : entry,
    );
    const appended = await engine.request('POST', '/sessions/large-counted/entries', { body: { entries } });
    expectStatus(appended, 200);
    const context = await engine.request('GET', '/sessions/large-counted/context');
    expectStatus(context, 200);
    expect(counter.stats()).toMatchObject({
      countedAhead: before.countedAhead + 1,
      countedOnTheSpot: before.countedOnTheSpot,
    });
    expect(counter.isReady([text])).toBe(true);
    expect(counter.countPieces([text], 0)).toBe(countO200kTokens(text));
  });
});
