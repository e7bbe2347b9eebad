// End to end over real HTTP: which model really answered (issue 13, item 8). Summaries travel to
// loopback servers speaking the remote-endpoint and OpenAI wire formats, configured through the
// settings (`compaction.remoteEndpoint` with an auth header and a timeout, like a `remote`
// candidate). The attempt records the model the provider returned, not the candidate's name;
// every call (history, turn prefix, short summary) with its own usage and duration; and every
// failed try (which candidate, which retry, the error, how long it took) — on the outcome, in the
// audit, and whichever way the attempt ends.
import type { RecordedEvent } from '@strata/event-store';
import { session } from '@strata/testing';
import type { AttemptList } from '@strata/client';
import { ProviderServer, chatCompletion } from '../engine/provider-server';
import { startHttpEngine, storedEventsOf, type HttpHarness } from './http-harness';

const PROVIDER_MODEL = 'fake-summarizer-1-2026';
const secrets = { LOCAL_KEY: 'local-key', SUMMARY_TOKEN: 'Bearer summary-token' };

function settingsFor(server: ProviderServer, remote: { readonly timeoutMs?: number } = {}) {
  return {
    compaction: {
      keepRecentTokens: 250,
      remoteEndpoint: {
        url: `${server.origin}/summarize`,
        authHeader: { name: 'x-summary-token', valueEnv: 'SUMMARY_TOKEN' },
        ...remote,
      },
    },
    branchSummary: { enabled: true },
    summarizer: {
      candidates: [
        {
          provider: 'openai-compatible' as const,
          model: 'configured-name',
          baseUrl: `${server.origin}/v1`,
          apiKeyEnv: 'LOCAL_KEY',
        },
      ],
      retry: { maxRetries: 1, baseDelayMs: 1 },
    },
  };
}

async function attemptsOf(engine: HttpHarness, sessionId: string): Promise<AttemptList['items']> {
  return (
    (await engine.request('GET', `/sessions/${sessionId}/attempts?order=oldest_first`)).body as AttemptList
  ).items;
}

async function outcomeEvent(engine: HttpHarness, sessionId: string, type: string): Promise<RecordedEvent> {
  const [event] = await storedEventsOf(engine, sessionId, type);
  if (event === undefined) throw new Error(`no ${type} in ${sessionId}`);
  return event;
}

describe('given a remote endpoint that fails and an OpenAI-compatible candidate that answers', () => {
  let server: ProviderServer;
  let engine: HttpHarness;
  const builder = session({ sessionId: 'models-fallback' }).editTurns(6);

  beforeAll(async () => {
    server = await ProviderServer.start();
    server.script('/summarize', { status: 503, body: { error: 'down' } });
    server.script('/v1/chat/completions', chatCompletion('## Goal\n- edit six modules', PROVIDER_MODEL));
    engine = await startHttpEngine({ settings: settingsFor(server), summarizerEnvironment: secrets });
    await engine.seed(builder.header, builder.entries);
  });

  afterAll(async () => {
    await engine.close();
    await server.close();
  });

  it('records the model the provider returned, each call with its usage, and every failed try', async () => {
    const compacted = await engine.request('POST', '/sessions/models-fallback/compact', {
      body: { attemptId: 'fallback-1' },
    });
    expect(compacted.body).toMatchObject({ outcome: 'completed', model: PROVIDER_MODEL });
    const [attempt] = await attemptsOf(engine, 'models-fallback');
    expect(attempt).toMatchObject({ attemptId: 'fallback-1', model: PROVIDER_MODEL });
    const calls = attempt!.summaryCalls;
    const purposes = ['history', 'turn-prefix', 'short-summary'];
    for (const purpose of purposes) {
      const own = calls.filter((call) => call.purpose === purpose);
      expect(own).toEqual([
        {
          purpose,
          summarizer: 'remote-endpoint',
          retry: 0,
          model: null,
          usage: null,
          durationMs: expect.any(Number),
          error: { message: expect.stringContaining('503'), code: 'server_error' },
        },
        expect.objectContaining({ summarizer: 'remote-endpoint', retry: 1, error: expect.anything() }),
        {
          purpose,
          summarizer: 'openai-compatible:configured-name@' + new URL(server.origin).host,
          retry: 0,
          model: PROVIDER_MODEL,
          usage: { input: 100, output: 20, totalTokens: 120, cost: null },
          durationMs: expect.any(Number),
          error: null,
        },
      ]);
    }
    expect(calls).toHaveLength(9);
    // The outcome's usage is still the sum of the calls, for readers of the older field.
    expect(attempt!.usage).toMatchObject({ input: 300, output: 60 });
    const completed = await outcomeEvent(engine, 'models-fallback', 'CompactionCompleted');
    expect(completed.data).toMatchObject({ model: PROVIDER_MODEL, summaryCalls: expect.any(Array) });
    expect((completed.data as { summaryCalls: unknown[] }).summaryCalls).toHaveLength(9);
    expect(server.requestsTo('/summarize')[0]?.headers['x-summary-token']).toBe('Bearer summary-token');
  });

  it('records them for a branch summary too', async () => {
    const navigated = await engine.request('POST', '/sessions/models-fallback/navigate', {
      body: { targetId: builder.entries[3]!.id, summarize: true, attemptId: 'branch-1' },
    });
    expect(navigated.body).toMatchObject({ outcome: 'navigated', summary: { model: PROVIDER_MODEL } });
    const branch = (await attemptsOf(engine, 'models-fallback')).find(
      (item) => item.attemptId === 'branch-1',
    );
    expect(branch).toMatchObject({ model: PROVIDER_MODEL });
    expect(
      branch!.summaryCalls.map((call) => [call.purpose, call.summarizer.split(':')[0], call.error === null]),
    ).toEqual([
      ['branch', 'remote-endpoint', false],
      ['branch', 'remote-endpoint', false],
      ['branch', 'openai-compatible', true],
    ]);
  });
});

describe('given a remote endpoint that names its model and reports its usage', () => {
  let server: ProviderServer;
  let engine: HttpHarness;
  const builder = session({ sessionId: 'models-remote' }).editTurns(6);

  beforeAll(async () => {
    server = await ProviderServer.start();
    server.script('/summarize', {
      status: 200,
      body: {
        summary: 'Remote summary.',
        shortSummary: 'I edited.',
        model: 'remote-model-7',
        usage: { input: 500, output: 50 },
      },
    });
    engine = await startHttpEngine({ settings: settingsFor(server), summarizerEnvironment: secrets });
    await engine.seed(builder.header, builder.entries);
  });

  afterAll(async () => {
    await engine.close();
    await server.close();
  });

  it('records the model it names and the usage it reports, per call', async () => {
    const compacted = await engine.request('POST', '/sessions/models-remote/compact', { body: {} });
    expect(compacted.body).toMatchObject({
      outcome: 'completed',
      model: 'remote-model-7',
      usage: { input: 1000, output: 100 },
    });
    const [attempt] = await attemptsOf(engine, 'models-remote');
    expect(attempt!.summaryCalls.map((call) => [call.purpose, call.model, call.usage?.input])).toEqual(
      expect.arrayContaining([
        ['history', 'remote-model-7', 500],
        ['turn-prefix', 'remote-model-7', 500],
      ]),
    );
    expect(attempt!.summaryCalls).toHaveLength(2);
  });
});

describe('given a remote endpoint slower than its timeout, then a candidate that always fails', () => {
  let server: ProviderServer;
  let engine: HttpHarness;
  const builder = session({ sessionId: 'models-failing' }).editTurns(6);

  beforeAll(async () => {
    server = await ProviderServer.start();
    server.script('/summarize', { status: 200, body: { summary: 'too late' }, delayMs: 2_000 });
    server.script('/v1/chat/completions', { status: 401, body: { error: { message: 'bad key' } } });
    engine = await startHttpEngine({
      settings: settingsFor(server, { timeoutMs: 100 }),
      summarizerEnvironment: secrets,
    });
    await engine.seed(builder.header, builder.entries);
  });

  afterAll(async () => {
    await engine.close();
    await server.close();
  });

  it('times the remote endpoint out, and records every failed try on the failed attempt', async () => {
    const compacted = await engine.request('POST', '/sessions/models-failing/compact', { body: {} });
    expect(compacted.body).toMatchObject({ outcome: 'failed' });
    const [attempt] = await attemptsOf(engine, 'models-failing');
    expect(attempt).toMatchObject({ outcome: 'failed' });
    const history = attempt!.summaryCalls.filter((call) => call.purpose === 'history');
    expect(history.map((call) => [call.summarizer.split(':')[0], call.retry, call.error?.code])).toEqual([
      ['remote-endpoint', 0, 'timed_out'],
      ['remote-endpoint', 1, 'timed_out'],
      ['openai-compatible', 0, 'authentication_failed'],
    ]);
    expect(history[0]!.durationMs).toBeGreaterThanOrEqual(90);
    const failed = await outcomeEvent(engine, 'models-failing', 'CompactionFailed');
    expect((failed.data as { summaryCalls: unknown[] }).summaryCalls.length).toBeGreaterThanOrEqual(3);
  });
});
