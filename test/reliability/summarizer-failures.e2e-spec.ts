// The summariser failing in every way we could think of (issue 6, part 2), through a remote
// summary endpoint over real HTTP, for compactions and branch summaries: each attempt ends in
// exactly one terminal event (failed with the error's code, or cancelled on abort), the HTTP
// answer is that outcome (never a 5xx), and nothing else is written — no entry, no leaf move.
import { join } from 'node:path';
import { SqliteEventStore, type RecordedEvent } from '@strata/event-store';
import { sessionStreamName } from '@strata/session';
import { session, type SessionBuilder } from '@strata/testing';
import { startHttpEngine, type HttpHarness } from '../http/http-harness';
import { CaseCounts } from './support/case-counts';
import { SummaryEndpoint, type EndpointBehaviour } from './support/summary-endpoint';

jest.setTimeout(60_000);

const SUMMARY_TIMEOUT_MS = 400;

interface FailureMode {
  readonly mode: string;
  readonly behaviour: EndpointBehaviour;
  /** The error code recorded on the attempt. */
  readonly code: string;
}

const failureModes: readonly FailureMode[] = [
  {
    mode: 'HTTP 500',
    behaviour: { kind: 'status', status: 500, body: '{"error":"boom"}' },
    code: 'server_error',
  },
  {
    mode: 'HTTP 503',
    behaviour: { kind: 'status', status: 503, body: 'busy' },
    code: 'server_error',
  },
  {
    mode: 'HTTP 429 with retry-after',
    behaviour: { kind: 'status', status: 429, body: '{}', headers: { 'retry-after': '1' } },
    code: 'rate_limited',
  },
  {
    mode: 'HTTP 401',
    behaviour: { kind: 'status', status: 401, body: '{"error":"no key"}' },
    code: 'authentication_failed',
  },
  {
    mode: 'HTTP 400 naming a context overflow',
    behaviour: {
      kind: 'status',
      status: 400,
      body: '{"error":"prompt is too long: 300000 tokens > 200000"}',
    },
    code: 'context_overflow',
  },
  {
    mode: 'HTML instead of JSON',
    behaviour: { kind: 'raw', body: '<html>gateway</html>', contentType: 'text/html' },
    code: 'malformed_response',
  },
  {
    mode: 'truncated JSON',
    behaviour: { kind: 'raw', body: '{"summary":"half a' },
    code: 'malformed_response',
  },
  {
    mode: 'JSON without a summary',
    behaviour: { kind: 'raw', body: '{"text":"wrong field"}' },
    code: 'missing_summary',
  },
  {
    mode: 'a summary that is a number',
    behaviour: { kind: 'raw', body: '{"summary":42}' },
    code: 'missing_summary',
  },
  { mode: 'an empty summary', behaviour: { kind: 'raw', body: '{"summary":"   "}' }, code: 'empty_summary' },
  { mode: 'a JSON array', behaviour: { kind: 'raw', body: '[1,2,3]' }, code: 'missing_summary' },
  { mode: 'the body cut off mid-way', behaviour: { kind: 'partial' }, code: 'connection_failed' },
  { mode: 'the connection reset', behaviour: { kind: 'reset' }, code: 'connection_failed' },
  { mode: 'no answer (timeout)', behaviour: { kind: 'hang' }, code: 'timed_out' },
];

const counts = new CaseCounts('summariser failures');
let endpoint: SummaryEndpoint;
let engine: HttpHarness;
let reader: SqliteEventStore;
let sessionNumber = 0;

beforeAll(async () => {
  endpoint = await SummaryEndpoint.start();
  engine = await startHttpEngine({
    settings: {
      compaction: { keepRecentTokens: 250 },
      branchSummary: { enabled: true },
      models: { defaultContextWindow: 10_000_000 },
      summarizer: {
        candidates: [{ provider: 'remote', url: endpoint.url, timeoutMs: SUMMARY_TIMEOUT_MS }],
        retry: { maxRetries: 0 },
      },
    },
  });
  reader = new SqliteEventStore({ filename: join(engine.directory, 'strata.db') });
});

afterAll(async () => {
  counts.report();
  await reader.close();
  await engine.close();
  await endpoint.close();
});

/** A fresh session with six edit turns (something to compact and a branch to leave). */
async function freshSession(): Promise<SessionBuilder> {
  sessionNumber += 1;
  const builder = session({ sessionId: `summariser-${sessionNumber}` });
  builder.editTurns(6);
  await engine.seed(builder.header, builder.entries);
  return builder;
}

async function eventsOf(sessionId: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of reader.readStream(sessionStreamName(sessionId))) events.push(event);
  return events;
}

/** The types of the events the call wrote, and what each terminal event recorded. */
async function writtenBy(sessionId: string, call: () => Promise<unknown>) {
  const before = (await eventsOf(sessionId)).length;
  const answer = await call();
  const written = (await eventsOf(sessionId)).slice(before);
  return { answer, types: written.map((event) => event.type), last: written.at(-1)?.data };
}

describe('a compaction whose summariser fails', () => {
  it.each(failureModes)(
    '$mode: ends failed ($code), writing only the start and the failure',
    async (mode) => {
      counts.record('compaction', [mode.mode]);
      const builder = await freshSession();
      endpoint.behave(mode.behaviour);
      const { answer, types, last } = await writtenBy(builder.header.id, () =>
        engine.request('POST', `/sessions/${builder.header.id}/compact`, { body: {} }),
      );
      expect(answer).toMatchObject({ status: 200, body: { outcome: 'failed', error: { code: mode.code } } });
      expect(types).toEqual(['CompactionStarted', 'CompactionFailed']);
      expect(last).toMatchObject({ error: { code: mode.code } });
    },
  );

  it('aborted while the summariser thinks: ends cancelled, writing only the start and the cancellation', async () => {
    counts.record('compaction', ['abort']);
    const builder = await freshSession();
    const sessionId = builder.header.id;
    endpoint.behave({ kind: 'hang' });
    const requestsBefore = endpoint.requests;
    const { answer, types } = await writtenBy(sessionId, async () => {
      const pending = engine.request('POST', `/sessions/${sessionId}/compact`, { body: {} });
      await endpoint.received(requestsBefore + 1);
      const aborted = await engine.request('POST', `/sessions/${sessionId}/abort`, { body: {} });
      expect(aborted.body).toMatchObject({ abortedAttemptIds: [expect.any(String)] });
      return pending;
    });
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'cancelled' } });
    expect(types).toEqual(['CompactionStarted', 'CompactionCancelled']);
  });

  it('retried on a retryable failure, then given up: one attempt, one failure', async () => {
    counts.record('compaction', ['retries exhausted']);
    const retrying = await startHttpEngine({
      settings: {
        compaction: { keepRecentTokens: 250 },
        summarizer: {
          candidates: [{ provider: 'remote', url: endpoint.url }],
          retry: { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
    });
    try {
      const builder = session({ sessionId: 'retried' });
      for (let turn = 0; turn < 6; turn += 1) builder.user(`Step ${turn}`).assistant('x'.repeat(600));
      await retrying.seed(builder.header, builder.entries);
      endpoint.behave({ kind: 'status', status: 502, body: 'bad gateway' });
      const requestsBefore = endpoint.requests;
      const answer = await retrying.request('POST', '/sessions/retried/compact', { body: {} });
      expect(answer).toMatchObject({
        status: 200,
        body: { outcome: 'failed', error: { code: 'server_error' } },
      });
      // The request given up on was sent 1 + 2 times. A split turn sends two requests at once
      // (the history and the turn prefix); the first to give up aborts the other, which may
      // then have been sent fewer times, never more.
      const sent = endpoint.bodies.slice(requestsBefore);
      const timesEach = [...new Set(sent)].map((body) => sent.filter((other) => other === body).length);
      expect(timesEach).toContain(3);
      expect(Math.max(...timesEach)).toBe(3);
    } finally {
      await retrying.close();
    }
  });
});

describe('a branch summary whose summariser fails', () => {
  const branchModes = failureModes.filter((mode) =>
    [
      'HTTP 500',
      'HTML instead of JSON',
      'an empty summary',
      'the connection reset',
      'no answer (timeout)',
    ].includes(mode.mode),
  );

  it.each(branchModes)(
    '$mode: ends failed ($code); the leaf stays where it was, no entry is written',
    async (mode) => {
      counts.record('branch summary', [mode.mode]);
      const builder = await freshSession();
      const sessionId = builder.header.id;
      endpoint.behave(mode.behaviour);
      const { answer, types } = await writtenBy(sessionId, () =>
        engine.request('POST', `/sessions/${sessionId}/navigate`, {
          body: { targetId: builder.entries[3]!.id, summarize: true },
        }),
      );
      expect(answer).toMatchObject({ status: 200, body: { outcome: 'failed', error: { code: mode.code } } });
      expect(types).toEqual(['BranchSummaryStarted', 'BranchSummaryFailed']);
      const detail = await engine.request('GET', `/sessions/${sessionId}`);
      expect(detail.body).toMatchObject({ leafId: builder.entries.at(-1)!.id });
    },
  );

  it('aborted while the summariser thinks: ends cancelled; the leaf stays where it was', async () => {
    counts.record('branch summary', ['abort']);
    const builder = await freshSession();
    const sessionId = builder.header.id;
    endpoint.behave({ kind: 'hang' });
    const requestsBefore = endpoint.requests;
    const { answer, types } = await writtenBy(sessionId, async () => {
      const pending = engine.request('POST', `/sessions/${sessionId}/navigate`, {
        body: { targetId: builder.entries[3]!.id, summarize: true },
      });
      await endpoint.received(requestsBefore + 1);
      await engine.request('POST', `/sessions/${sessionId}/abort`, { body: { kind: 'branch_summary' } });
      return pending;
    });
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'cancelled' } });
    expect(types).toEqual(['BranchSummaryStarted', 'BranchSummaryCancelled']);
  });
});
