// End to end over real HTTP (issue 13, item 2): the host can tell that a compaction is under way.
// The append that asked for one names it (`compaction: {attemptId, trigger}`), and the context
// read waits for the session's compactions with `waitForCompaction=<ms>`, saying in
// `compactionWait` whether they settled or the wait timed out.
import { ScriptedSummarizer, session, type SessionBuilder } from '@strata/testing';
import { SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import { CompactionWaits } from '../../apps/engine/src/sagas/compaction-waits.service';
import { MAX_COMPACTION_WAIT_MS } from '../../apps/engine/src/api/sessions/session-requests.schemas';
import { problemOf, startHttpEngine, waitUntil, type HttpHarness } from './http-harness';

/** A 10,000-token window less a 2,000-token reserve: the threshold is 8,000. */
const settings = {
  compaction: { keepRecentTokens: 250, reserveTokens: 2000, autoContinue: false },
  models: { defaultContextWindow: 10000 },
};
/** How the append's answer names an attempt that has not ended (issue 25). */
const STILL_OPEN = { outcome: null, reason: null, willRetry: false, entryId: null };
const usage = (tokens: number) => ({ input: tokens - 100, output: 100, cacheRead: 0, cacheWrite: 0 });

interface AppendAnswer {
  readonly leafId: string;
  readonly compaction: { attemptId: string; trigger: string; outcome: string | null } | null;
}

interface ContextAnswer {
  readonly leafId: string;
  readonly compactionId: string | null;
  readonly compactionWait?: { outcome: string; waitedMs: number; attemptIds: string[] };
}

describe('given an engine whose summariser the test holds', () => {
  let engine: HttpHarness;
  let summarizer: ScriptedSummarizer;
  /** The engine's context reads that began waiting for compactions (observed, not replaced). */
  let waitsBegun: jest.SpiedFunction<CompactionWaits['waitUntilSettled']>;

  beforeAll(async () => {
    summarizer = new ScriptedSummarizer();
    engine = await startHttpEngine({ settings, summarizers: [summarizer] });
    waitsBegun = jest.spyOn(engine.app.get(CompactionWaits), 'waitUntilSettled');
  });

  /** Resolves once the engine holds one more waiting read than `before`: it is waiting, not on its way. */
  function readWaiting(before: number): Promise<void> {
    return waitUntil(
      () => Promise.resolve(waitsBegun.mock.calls.length > before),
      'the context read waiting for the compaction',
    );
  }

  afterAll(() => engine.close());

  afterEach(() => summarizer.release());

  async function seeded(sessionId: string): Promise<SessionBuilder> {
    const builder = session({ sessionId }).editTurns(6);
    await engine.seed(builder.header, builder.entries);
    return builder;
  }

  async function appendSince(builder: SessionBuilder, from: number): Promise<AppendAnswer> {
    const answer = await engine.request('POST', `/sessions/${builder.header.id}/entries`, {
      body: { entries: builder.entries.slice(from), expectedLeafId: builder.entries[from - 1]?.id },
    });
    expect(answer.status).toBe(200);
    return answer.body as AppendAnswer;
  }

  async function contextOf(sessionId: string, query = ''): Promise<ContextAnswer> {
    const answer = await engine.request('GET', `/sessions/${sessionId}/context${query}`);
    expect(answer.status).toBe(200);
    return answer.body as ContextAnswer;
  }

  it('names the compaction an answer over the threshold asks for, and the context read waits for it', async () => {
    const builder = await seeded('wait-threshold');
    const from = builder.entries.length;
    builder.user('Sum it up').assistant('Summed up.', { usage: usage(8500) });
    summarizer.hold();
    // The summariser serves every test of the file: wait for this test's own call.
    const callsBefore = summarizer.calls.length;
    const appended = await appendSince(builder, from);
    expect(appended.compaction).toEqual({
      attemptId: expect.any(String),
      trigger: 'threshold',
      ...STILL_OPEN,
    });
    await summarizer.whenCalled(callsBefore + 1);

    const early = await contextOf('wait-threshold', '?waitForCompaction=150');
    expect(early.compactionWait).toMatchObject({
      outcome: 'timed_out',
      attemptIds: [appended.compaction?.attemptId],
    });
    expect(early.compactionWait?.waitedMs).toBeGreaterThanOrEqual(150);
    expect(early.compactionId).toBeNull();
    expect(early.leafId).toBe(builder.lastId);

    const waitsBefore = waitsBegun.mock.calls.length;
    const waiting = contextOf('wait-threshold', '?waitForCompaction=20000');
    await readWaiting(waitsBefore);
    summarizer.release();
    const settled = await waiting;
    expect(settled.compactionWait).toMatchObject({ outcome: 'settled' });
    expect(settled.compactionId).not.toBeNull();
    expect(settled.leafId).toBe(settled.compactionId);
    const attempts = await engine.request('GET', '/sessions/wait-threshold/attempts');
    expect(attempts.body).toMatchObject({
      items: [{ attemptId: appended.compaction?.attemptId, trigger: 'threshold', outcome: 'completed' }],
    });
  });

  it('names nothing for an append that asks for nothing, and the wait settles at once', async () => {
    const builder = await seeded('wait-nothing');
    const from = builder.entries.length;
    builder.user('Next').assistant('Done.', { usage: usage(3000) });
    const appended = await appendSince(builder, from);
    expect(appended.compaction).toBeNull();

    const context = await contextOf('wait-nothing', '?waitForCompaction=20000');
    expect(context.compactionWait).toMatchObject({ outcome: 'settled', attemptIds: [] });
    expect(context.compactionWait?.waitedMs).toBeLessThan(20000);
    expect(context.leafId).toBe(builder.lastId);
    expect((await contextOf('wait-nothing')).compactionWait).toBeUndefined();
  });

  it('settles at once when the session ends in events no saga reads (a start, a navigation)', async () => {
    const started = session({ sessionId: 'wait-started' });
    await engine.seed(started.header, []);
    expect((await contextOf('wait-started', '?waitForCompaction=20000')).compactionWait).toMatchObject({
      outcome: 'settled',
    });
    const builder = await seeded('wait-navigated');
    const navigated = await engine.request('POST', '/sessions/wait-navigated/navigate', {
      body: { targetId: builder.entries[1]!.id },
    });
    expect(navigated.status).toBe(200);
    const context = await contextOf('wait-navigated', '?waitForCompaction=20000');
    expect(context.compactionWait).toMatchObject({ outcome: 'settled', attemptIds: [] });
    expect(context.compactionWait?.waitedMs).toBeLessThan(20000);
  });

  it('names the compaction a prompt asks for when the answer before it is over the threshold', async () => {
    const builder = await seeded('wait-prompt');
    const from = builder.entries.length;
    builder.user('Run the tests').assistantToolCalls([{ name: 'bash' }], { usage: usage(8500) });
    builder.toolResult('bash', 'interrupted');
    expect((await appendSince(builder, from)).compaction).toBeNull();
    const next = builder.entries.length;
    builder.user('Forget the tests; write the docs');
    const prompted = await appendSince(builder, next);
    expect(prompted.compaction).toEqual({
      attemptId: expect.any(String),
      trigger: 'threshold',
      ...STILL_OPEN,
    });

    const context = await contextOf('wait-prompt', '?waitForCompaction=20000');
    expect(context.compactionWait).toMatchObject({ outcome: 'settled' });
    expect(context.compactionId).not.toBeNull();
  });

  it('names the attempt again when the append is sent again with its idempotency key', async () => {
    const builder = await seeded('wait-replayed');
    const from = builder.entries.length;
    builder.user('Sum it up').assistant('Summed up.', { usage: usage(8500) });
    const send = () =>
      engine.request('POST', '/sessions/wait-replayed/entries', {
        body: { entries: builder.entries.slice(from), idempotencyKey: 'turn-7' },
      });
    const first = (await send()).body as AppendAnswer;
    await engine.app.get(SagaRunner).drain();
    const again = (await send()).body as AppendAnswer & { alreadyAppended: boolean };
    expect(again.alreadyAppended).toBe(true);
    expect(first.compaction).not.toBeNull();
    // Sent again once the attempt has ended, the answer also says how it ended (issue 25).
    expect(again.compaction).toEqual({
      ...first.compaction,
      outcome: 'completed',
      entryId: expect.any(String),
    });
  });

  it('waits for a manual compaction in flight too', async () => {
    const builder = await seeded('wait-manual');
    summarizer.hold();
    const callsBefore = summarizer.calls.length;
    const compacting = engine.request('POST', '/sessions/wait-manual/compact', { body: {} });
    await summarizer.whenCalled(callsBefore + 1);
    const early = await contextOf('wait-manual', '?waitForCompaction=100');
    const waitsBefore = waitsBegun.mock.calls.length;
    const waiting = contextOf('wait-manual', '?waitForCompaction=20000');
    await readWaiting(waitsBefore);
    summarizer.release();
    const [compacted, context] = await Promise.all([compacting, waiting]);
    const attemptId = (compacted.body as { attemptId: string }).attemptId;
    expect(early.compactionWait).toMatchObject({ outcome: 'timed_out', attemptIds: [attemptId] });
    expect(context.compactionWait).toMatchObject({ outcome: 'settled' });
    expect(context.compactionId).not.toBeNull();
    expect(context.leafId).not.toBe(builder.lastId);
  });

  it.each([
    ['-1', 'negative'],
    ['1.5', 'not whole'],
    ['soon', 'not a number'],
    [String(MAX_COMPACTION_WAIT_MS + 1), 'above the bound'],
  ])('refuses waitForCompaction=%s (%s)', async (value) => {
    await seeded(`wait-invalid-${value}`.replace('.', '-'));
    const answer = await engine.request(
      'GET',
      `/sessions/${`wait-invalid-${value}`.replace('.', '-')}/context?waitForCompaction=${value}`,
    );
    expect(answer.status).toBe(400);
    expect(problemOf(answer)).toMatchObject({
      code: 'validation',
      errors: [expect.objectContaining({ path: 'query.waitForCompaction' })],
    });
  });

  it('refuses waitForCompaction with asOf: a past context does not wait', async () => {
    await seeded('wait-as-of');
    const answer = await engine.request('GET', '/sessions/wait-as-of/context?waitForCompaction=10&asOf=1');
    expect(answer.status).toBe(400);
    expect(problemOf(answer)).toMatchObject({ code: 'validation' });
  });
});
