// End to end over real HTTP with the o200k counter (issue 11, finding 4): long runs of one
// character (base64 blobs, separator lines, minified files) are counted in time linear in their
// length, and a long count leaves the engine answering other requests. Before the fix a 20 kB run
// took the context read 22-25 s with /health blocked as long, and a 2 MB run never finished.
import { serializeSessionFile, type SessionEntry } from '@strata/session';
import { pseudoRandomLetters, session, type SessionBuilder } from '@strata/testing';
import { countO200kTokens } from '@strata/tokenizer';
import type { PreparedTokenCounter } from '@strata/tokenizer';
import { SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import { TOKEN_COUNTER } from '../../apps/engine/src/shared/injection-tokens';
import { CaseCounts } from '../reliability/support/case-counts';
import { startHttpEngine, waitUntil, type ApiResponse, type HttpHarness } from './http-harness';

/**
 * The ceiling of a test of short texts (each takes about a second on a quiet 2-core machine):
 * room for a loaded one, far shorter than a count that is not linear (a 20 kB run took 22-25 s,
 * a 2 MB run never finished).
 */
const GUARD_MS = 20_000;

const settings = {
  tokenizer: 'o200k',
  compaction: { keepRecentTokens: 250, reserveTokens: 2000, autoContinue: false },
  branchSummary: { enabled: true, reserveTokens: 2000 },
  models: { defaultContextWindow: 10_000 },
} as const;

/** Each test uses a text of its own, so that no count kept by an earlier test serves it. */
const twentyKilobytes = 'x'.repeat(20_000);
const twoMegabytes = 'y'.repeat(2_000_000);
/** Blobs like a minified file: one long piece, the slowest text per byte to count. */
const importedBlob = pseudoRandomLetters(3_000_000, 1);
const appendedBlob = pseudoRandomLetters(3_000_000, 2);
/** The blobs' counts, made here (outside the tests' time) by the linear counter being tested. */
const countStarted = performance.now();
const importedBlobTokens = countO200kTokens(importedBlob);
/** How long one 3 MB count takes on this machine at its present load (about 3.5 s when quiet). */
const blobCountMs = performance.now() - countStarted;
const appendedBlobTokens = countO200kTokens(appendedBlob);
/**
 * The ceiling of a test with a 3 MB blob, from the work it does: the engine counts the blob once,
 * in slices between the /health answers, after parsing and storing it (about 1.5 counts in all
 * when quiet); eight counts leave room for a machine whose load rises during the test. A count
 * that is not linear in the length stays caught: it takes hundreds of times longer.
 */
const BLOB_GUARD_MS = Math.max(GUARD_MS, Math.ceil(8 * blobCountMs));

function expectStatus(response: ApiResponse, status: number): void {
  if (response.status !== status)
    throw new Error(`expected ${status}, got ${response.status}: ${response.text}`);
}

/** The entries of `builder` continuing after `parentId` (another builder's last entry). */
function continuing(builder: SessionBuilder, parentId: string): SessionEntry[] {
  return builder.entries.map((entry, index) => (index === 0 ? { ...entry, parentId } : entry));
}

/**
 * Runs `slow` while asking `GET /health` again and again; the number of health answers that
 * arrived before `slow` finished.
 */
async function healthAnswersDuring(engine: HttpHarness, slow: Promise<ApiResponse>): Promise<number> {
  let finished = false;
  const done = slow.finally(() => {
    finished = true;
  });
  let answeredDuring = 0;
  while (!finished) {
    const health = await engine.request('GET', '/health');
    expectStatus(health, 200);
    if (!finished) answeredDuring += 1;
  }
  await done;
  return answeredDuring;
}

describe('given an engine counting with o200k', () => {
  let engine: HttpHarness;
  const counts = new CaseCounts('long texts');

  beforeAll(async () => {
    engine = await startHttpEngine({ settings });
  });

  afterAll(async () => {
    counts.report();
    await engine.close();
  });

  // The sagas react to each test's appends and imports after its requests are answered (counting
  // a session's context, a compaction): that work belongs to the test, and left running it delayed
  // the next test's compaction and the engine's close (over 30 s beside `stress --cpu 2`). After
  // the appended blob it takes about 2.5 counts of the blob (9 s when quiet); the blobs' guard.
  afterEach(() => engine.app.get(SagaRunner).drain(), BLOB_GUARD_MS);

  // Every engine path that counts made its long counts ready in slices: none was counted on the
  // spot (which would have held the event loop for the whole count).
  afterEach(() => {
    expect(engine.app.get<PreparedTokenCounter>(TOKEN_COUNTER).stats().countedOnTheSpot).toBe(0);
  });

  it(
    'answers the context of a user message of 20 kB of one character',
    async () => {
      const builder = session({ sessionId: 'long-user-20k' }).user(twentyKilobytes).assistant('Seen.');
      await engine.seed(builder.header, builder.entries);
      const read = await engine.request('GET', '/sessions/long-user-20k/context');
      expectStatus(read, 200);
      expect(read.body).toMatchObject({ messageTokens: [2_500, 2] });
      counts.record('context read', ['one character 20 kB']);
    },
    GUARD_MS,
  );

  it(
    'answers the context of an imported user message of 2 MB of one character',
    async () => {
      const builder = session({ sessionId: 'long-user-2m' }).user(twoMegabytes).assistant('Seen.');
      const imported = await engine.request('POST', '/sessions/import', {
        rawBody: serializeSessionFile(builder.header, builder.entries),
        contentType: 'application/x-ndjson',
      });
      expectStatus(imported, 201);
      const read = await engine.request('GET', '/sessions/long-user-2m/context');
      expectStatus(read, 200);
      expect(read.body).toMatchObject({ messageTokens: [500_000, 2] });
      counts.record('context read', ['one character 2 MB imported']);
    },
    GUARD_MS,
  );

  it(
    'keeps answering /health while the first context read counts an imported 3 MB blob',
    async () => {
      const builder = session({ sessionId: 'long-import-blob' }).user(importedBlob).assistant('Seen.');
      const imported = await engine.request('POST', '/sessions/import', {
        rawBody: serializeSessionFile(builder.header, builder.entries),
        contentType: 'application/x-ndjson',
      });
      expectStatus(imported, 201);
      // The tree read loads the session without counting, so the context read below only counts.
      expectStatus(await engine.request('GET', '/sessions/long-import-blob/tree'), 200);

      const read = engine.request('GET', '/sessions/long-import-blob/context');
      const answeredDuring = await healthAnswersDuring(engine, read);
      const context = await read;
      expectStatus(context, 200);
      expect(context.body).toMatchObject({ messageTokens: [importedBlobTokens, 2] });
      expect(answeredDuring).toBeGreaterThanOrEqual(2);
      counts.record('context read', ['random letters 3 MB imported']);
      counts.record('/health during a count', ['context read']);
    },
    BLOB_GUARD_MS,
  );

  it(
    'keeps answering /health while it counts an appended 3 MB blob, whose context then reads at once',
    async () => {
      const builder = session({ sessionId: 'long-append-blob' }).user('Show the blob');
      await engine.seed(builder.header, builder.entries);
      const blob = session({ sessionId: 'long-append-blob', idPrefix: 'b' }).assistant(appendedBlob);
      const appended = engine.request('POST', '/sessions/long-append-blob/entries', {
        body: { entries: continuing(blob, builder.lastId) },
      });
      const answeredDuring = await healthAnswersDuring(engine, appended);
      expectStatus(await appended, 200);
      expect(answeredDuring).toBeGreaterThanOrEqual(2);

      const read = await engine.request('GET', '/sessions/long-append-blob/context');
      expectStatus(read, 200);
      expect(read.body).toMatchObject({ messageTokens: [3, appendedBlobTokens] });
      counts.record('append', ['random letters 3 MB']);
      counts.record('/health during a count', ['append']);
    },
    BLOB_GUARD_MS,
  );

  it(
    'compacts a session holding an assistant message of 16 kB of one character',
    async () => {
      const builder = session({ sessionId: 'long-compact-16k' })
        .user('Print the separator')
        .assistant('='.repeat(16_000))
        .editTurns(3);
      await engine.seed(builder.header, builder.entries);
      const compacted = await engine.request('POST', '/sessions/long-compact-16k/compact', { body: {} });
      expectStatus(compacted, 200);
      expect(compacted.body).toMatchObject({ outcome: 'completed' });
      counts.record('compaction', ['one character 16 kB']);
    },
    GUARD_MS,
  );

  it(
    'navigates with a branch summary over an assistant message of 16 kB of one character',
    async () => {
      const builder = session({ sessionId: 'long-navigate-16k' })
        .user('Start')
        .assistant('Ready.')
        .user('Draw a line')
        .assistant('#'.repeat(16_000));
      await engine.seed(builder.header, builder.entries);
      const target = builder.entries[1]!.id;
      const navigated = await engine.request('POST', '/sessions/long-navigate-16k/navigate', {
        body: { targetId: target, summarize: true },
      });
      expectStatus(navigated, 200);
      expect(navigated.body).toMatchObject({
        outcome: 'navigated',
        summary: { entry: { type: 'branch_summary', parentId: target } },
      });
      counts.record('navigation with a summary', ['one character 16 kB']);
    },
    GUARD_MS,
  );

  it(
    'prunes and compacts automatically past a tool result of 2 MB of one character',
    async () => {
      const builder = session({ sessionId: 'long-threshold-2m' })
        .user('Dump the log')
        .assistantToolCalls([{ name: 'bash', arguments: { command: 'cat log' } }])
        .toolResult('bash', '-'.repeat(2_000_000))
        .assistant('Dumped.')
        .editTurns(2);
      await engine.seed(builder.header, builder.entries);
      const answer = session({ sessionId: 'long-threshold-2m', idPrefix: 'n' })
        .user('Next step')
        .assistant('Answer.', {
          usage: { input: 8400, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 8500 },
        });
      expectStatus(
        await engine.request('POST', '/sessions/long-threshold-2m/entries', {
          body: { entries: continuing(answer, builder.lastId) },
        }),
        200,
      );
      // Under a second when quiet; the wait ends before the test's guard, so a failure names it.
      await waitUntil(
        async () => {
          const attempts = await engine.request('GET', '/sessions/long-threshold-2m/attempts');
          expectStatus(attempts, 200);
          const items = (attempts.body as { items: { outcome: string }[] }).items;
          return items.some((attempt) => attempt.outcome === 'completed');
        },
        'an automatic compaction of long-threshold-2m completed',
        GUARD_MS - 5_000,
      );
      const context = await engine.request('GET', '/sessions/long-threshold-2m/context');
      expectStatus(context, 200);
      expect(context.body).toMatchObject({ compactionId: expect.any(String) });
      counts.record('pruning and automatic compaction', ['one character 2 MB']);
    },
    GUARD_MS,
  );
});
