// End to end over real HTTP (issue 25, items 2 and 3): what an agent host can see of the engine's
// work. An answer that succeeded with usage above the window is compacted at the threshold and
// nothing asks for it again; only a failed answer is retried. The append's answer and the
// context read's `compactionWait` say how each compaction attempt ended (`outcome`, `reason`,
// `willRetry`), an overflow recovery skipped as `nothing_to_summarize` included, even when it
// ended before the read began to wait. The context says what it repaired, and one entry is read
// by its id.
import type { SessionEntry } from '@strata/session';
import { session, type SessionBuilder } from '@strata/testing';
import { SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import {
  ALPHA_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  problemOf,
  startHttpEngine,
  storedEventsOf,
  type HttpHarness,
} from './http-harness';

/** A 10,000-token window less a 2,000-token reserve: the threshold is 8,000. */
const settings = {
  compaction: { keepRecentTokens: 250, reserveTokens: 2000, autoContinue: false },
  models: { defaultContextWindow: 10000 },
};
const OVERFLOW_ERROR = 'prompt is too long: 10400 tokens > 10000 maximum';

interface AttemptReport {
  readonly attemptId: string;
  readonly trigger: string;
  readonly outcome: string | null;
  readonly reason: string | null;
  readonly willRetry: boolean;
  readonly entryId: string | null;
}

interface AppendAnswer {
  readonly compaction: (AttemptReport & { trigger: string }) | null;
}

interface ContextAnswer {
  readonly entryIds: (string | null)[];
  readonly messages: { role: string; toolCallId?: string; details?: unknown }[];
  readonly repairs: {
    synthesizedResults: string[];
    droppedOrphanResults: string[];
    omittedFailedAnswers: string[];
    missingFirstKeptEntry: unknown;
  };
  readonly compactionWait?: { outcome: string; attemptIds: string[]; attempts: AttemptReport[] };
}

describe('what a host sees of the compactions and the context, two tenants over HTTP', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings, environment: { STRATA_API_KEYS: TWO_TENANT_KEYS } });
  });

  afterAll(() => engine.close());

  /** A session of `turns` edit turns, or of one prompt when `turns` is 0. */
  async function seeded(sessionId: string, turns: number): Promise<SessionBuilder> {
    const builder = session({ sessionId });
    if (turns > 0) builder.editTurns(turns);
    else builder.user('Hello');
    await engine.seed(builder.header, builder.entries, ALPHA_KEY);
    return builder;
  }

  /** Appends what `builder` holds after `from` under the entry before it. */
  async function appendSince(
    builder: SessionBuilder,
    from: number,
    idempotencyKey?: string,
  ): Promise<AppendAnswer> {
    const answer = await engine.request('POST', `/sessions/${builder.header.id}/entries`, {
      body: {
        entries: builder.entries.slice(from),
        expectedLeafId: builder.entries[from - 1]?.id,
        ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      },
      key: ALPHA_KEY,
    });
    expect(answer.status).toBe(200);
    return answer.body as AppendAnswer;
  }

  async function waitedContext(sessionId: string): Promise<ContextAnswer> {
    const answer = await engine.request('GET', `/sessions/${sessionId}/context?waitForCompaction=60000`, {
      key: ALPHA_KEY,
    });
    expect(answer.status).toBe(200);
    const body = answer.body as ContextAnswer;
    expect(body.compactionWait?.outcome).toBe('settled');
    return body;
  }

  async function continuationsOf(sessionId: string): Promise<unknown[]> {
    return (await storedEventsOf(engine, sessionId, 'ContinuationRequested')).map((event) => event.data);
  }

  it('compacts an answer that succeeded with usage above the window at the threshold, and asks for no retry', async () => {
    const builder = await seeded('succeeded-over-window', 6);
    const from = builder.entries.length;
    builder.user('Read the whole log').assistant('Read it: nothing unusual.', {
      usage: { input: 10400, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 10500 },
    });
    const appended = await appendSince(builder, from);
    expect(appended.compaction).toMatchObject({ trigger: 'threshold', willRetry: false });

    const context = await waitedContext(builder.header.id);
    expect(context.compactionWait?.attempts).toEqual([
      {
        attemptId: appended.compaction?.attemptId,
        trigger: 'threshold',
        outcome: 'completed',
        reason: null,
        willRetry: false,
        entryId: expect.any(String),
      },
    ]);
    expect(await continuationsOf(builder.header.id)).toEqual([]);
  });

  it('recovers from an answer that failed with an overflow, says it will retry, and the compaction entry reads by its id', async () => {
    const builder = await seeded('failed-overflow', 6);
    const from = builder.entries.length;
    builder.user('Read the whole log').assistant('', {
      stopReason: 'error',
      errorMessage: OVERFLOW_ERROR,
      usage: { input: 0, output: 0 },
    });
    const appended = await appendSince(builder, from);
    expect(appended.compaction).toMatchObject({ trigger: 'overflow' });

    const context = await waitedContext(builder.header.id);
    const [attempt] = context.compactionWait?.attempts ?? [];
    expect(attempt).toMatchObject({
      attemptId: appended.compaction?.attemptId,
      trigger: 'overflow',
      outcome: 'completed',
      reason: null,
      willRetry: true,
    });
    expect(await continuationsOf(builder.header.id)).toMatchObject([{ reason: 'overflow_retry' }]);
    expect(context.repairs.omittedFailedAnswers).toEqual([builder.lastId]);

    const entry = await engine.request('GET', `/sessions/failed-overflow/entries/${attempt?.entryId}`, {
      key: ALPHA_KEY,
    });
    expect(entry.status).toBe(200);
    expect(entry.body).toMatchObject({
      sessionId: 'failed-overflow',
      entry: { id: attempt?.entryId, type: 'compaction', parentId: builder.lastId },
      childIds: [],
      onCurrentPath: true,
    });
  });

  it('tells an overflow recovery skipped as nothing_to_summarize, also when it ended before the wait began', async () => {
    const builder = await seeded('skipped-recovery', 0);
    const from = builder.entries.length;
    builder.assistant('', {
      stopReason: 'error',
      errorMessage: OVERFLOW_ERROR,
      usage: { input: 0, output: 0 },
    });
    const appended = await appendSince(builder, from, 'failed-answer');
    expect(appended.compaction).toMatchObject({ trigger: 'overflow' });
    // The recovery ends before the host reads: the wait never sees it open.
    await engine.app.get(SagaRunner).drain();

    const context = await waitedContext(builder.header.id);
    expect(context.compactionWait?.attempts).toEqual([
      {
        attemptId: appended.compaction?.attemptId,
        trigger: 'overflow',
        outcome: 'skipped',
        reason: 'nothing_to_summarize',
        willRetry: false,
        entryId: null,
      },
    ]);
    expect(context.compactionWait?.attemptIds).toEqual([]);

    // The append repeated with its key names the attempt with its outcome.
    const repeated = await appendSince(builder, from, 'failed-answer');
    expect(repeated.compaction).toMatchObject({
      attemptId: appended.compaction?.attemptId,
      outcome: 'skipped',
      reason: 'nothing_to_summarize',
      willRetry: false,
    });
  });

  it('lists the synthetic result the context made for a call left without one', async () => {
    const builder = await seeded('repaired-context', 0);
    const from = builder.entries.length;
    builder.assistantToolCalls([{ name: 'read' }]);
    const call = builder.lastId;
    const appended: SessionEntry[] = builder.entries.slice(from);
    await appendSince(builder, from);
    builder.user('Never mind, go on');
    await appendSince(builder, from + appended.length);

    const context = await engine.request('GET', '/sessions/repaired-context/context', { key: ALPHA_KEY });
    const body = context.body as ContextAnswer;
    const callEntry = builder.entries.find((entry) => entry.id === call);
    const callId =
      callEntry?.type === 'message' && callEntry.message.role === 'assistant'
        ? callEntry.message.content.find((block) => block.type === 'toolCall')?.id
        : undefined;
    expect(callId).toBeDefined();
    expect(body.repairs).toEqual({
      synthesizedResults: [callId],
      droppedOrphanResults: [],
      omittedFailedAnswers: [],
      missingFirstKeptEntry: null,
    });
    const synthetic = body.messages.findIndex((message) => message.toolCallId === callId);
    expect(body.entryIds[synthetic]).toBeNull();
  });

  it("answers one entry by its id, and 404 for an unknown entry, an unknown session or another tenant's", async () => {
    const builder = await seeded('one-entry', 1);
    const [first, second] = builder.entries;
    const entry = await engine.request('GET', `/sessions/one-entry/entries/${first?.id}`, { key: ALPHA_KEY });
    expect(entry.status).toBe(200);
    expect(entry.body).toMatchObject({
      entry: first,
      label: null,
      childIds: [second?.id],
      onCurrentPath: true,
      leafId: builder.lastId,
    });

    const unknownEntry = await engine.request('GET', '/sessions/one-entry/entries/nope', { key: ALPHA_KEY });
    expect(unknownEntry.status).toBe(404);
    expect(problemOf(unknownEntry).code).toBe('not_found');
    const unknownSession = await engine.request('GET', `/sessions/no-such/entries/${first?.id}`, {
      key: ALPHA_KEY,
    });
    expect(unknownSession.status).toBe(404);
    expect(problemOf(unknownSession).code).toBe('not_found');
    const otherTenant = await engine.request('GET', `/sessions/one-entry/entries/${first?.id}`, {
      key: BETA_KEY,
    });
    expect(otherTenant.status).toBe(404);
    expect(problemOf(otherTenant).code).toBe('not_found');
  });
});
