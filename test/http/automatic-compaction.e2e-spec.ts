// End to end over real HTTP: the engine behind `npm start` runs the sagas. An answer that
// reports a context above the threshold, appended through the API by a tenant, is compacted
// automatically; subscribers see auto_compaction_start, session_compact and auto_compaction_end,
// and the saga's events carry the session's tenant although no request wrote them. Imported
// history over the threshold is left alone until a live answer arrives.
import type { EventStore } from '@strata/event-store';
import { serializeSessionFile, sessionStreamName } from '@strata/session';
import { session } from '@strata/testing';
import { SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import { EVENT_STORE } from '../../apps/engine/src/shared/injection-tokens';
import { ALPHA_KEY, BETA_KEY, TWO_TENANT_KEYS, startHttpEngine, type HttpHarness } from './http-harness';
import { openEventStream } from './sse-client';

const settings = {
  compaction: { keepRecentTokens: 250, reserveTokens: 2000, autoContinue: false },
  models: { defaultContextWindow: 10000 },
};

describe('given an engine with sagas and a session of tenant alpha under the threshold', () => {
  const builder = session({ sessionId: 'auto-1' });
  builder.editTurns(6);
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings, environment: { STRATA_API_KEYS: TWO_TENANT_KEYS } });
    await engine.seed(builder.header, builder.entries, ALPHA_KEY);
  });

  afterAll(() => engine.close());

  it('compacts automatically when an answer crosses the threshold, and streams it to the tenant only', async () => {
    const names = 'auto_compaction_start,session_compact,auto_compaction_end';
    const alpha = await openEventStream(`${engine.url}/events?types=${names}`, { 'x-api-key': ALPHA_KEY });
    const beta = await openEventStream(`${engine.url}/events?types=${names}`, { 'x-api-key': BETA_KEY });
    await alpha.waitForComment((comment) => comment.startsWith('caught up'));
    await beta.waitForComment((comment) => comment.startsWith('caught up'));

    const next = session({ sessionId: 'auto-1', idPrefix: 'n' })
      .user('Next step')
      .assistant('Answer.', {
        usage: { input: 8400, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 8500 },
      });
    const entries = next.entries.map((entry, index) =>
      index === 0 ? { ...entry, parentId: builder.lastId } : entry,
    );
    const appended = await engine.request('POST', '/sessions/auto-1/entries', {
      body: { entries },
      key: ALPHA_KEY,
    });
    expect(appended.status).toBe(200);

    const events = await alpha.waitForEvents(3);
    expect(events.map((event) => event.event)).toEqual(names.split(','));
    expect(events[0]?.json.data).toMatchObject({ reason: 'threshold' });
    expect(events[2]?.json.data).toMatchObject({
      reason: 'threshold',
      outcome: 'completed',
      willRetry: false,
    });
    await beta.waitForComment((comment) => comment === 'heartbeat');
    expect(beta.events).toEqual([]);
    alpha.close();
    beta.close();

    const store = engine.app.get<EventStore>(EVENT_STORE);
    const tenants = new Set<unknown>();
    for await (const event of store.readStream(sessionStreamName('auto-1')))
      tenants.add(event.metadata['tenant']);
    expect([...tenants]).toEqual(['alpha']);
    const verified = await engine.request('GET', '/sessions/auto-1/verify', { key: ALPHA_KEY });
    expect(verified.body).toMatchObject({ ok: true });
  });
});

describe('given an imported session whose last answer is over the threshold', () => {
  const builder = session({ sessionId: 'imported-over-threshold' });
  builder.editTurns(6);
  builder.user('One more step').assistant('Answer.', {
    usage: { input: 8400, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 8500 },
  });
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings });
    const imported = await engine.request('POST', '/sessions/import', {
      rawBody: serializeSessionFile(builder.header, builder.entries),
      contentType: 'application/x-ndjson',
    });
    expect(imported.status).toBe(201);
    await engine.app.get(SagaRunner).drain();
  });

  afterAll(() => engine.close());

  it('leaves the history alone: the imported events are marked, and no attempt starts', async () => {
    const store = engine.app.get<EventStore>(EVENT_STORE);
    const origins = new Set<unknown>();
    for await (const event of store.readStream(sessionStreamName(builder.header.id)))
      origins.add(event.metadata['origin']);
    expect([...origins]).toEqual(['import']);
    const attempts = await engine.request('GET', `/sessions/${builder.header.id}/attempts`);
    expect(attempts.body).toMatchObject({ items: [] });
  });

  it('compacts once a live answer arrives over the threshold', async () => {
    const next = session({ sessionId: builder.header.id, idPrefix: 'n' })
      .user('Next step')
      .assistant('Answer.', {
        usage: { input: 8600, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 8700 },
      });
    const entries = next.entries.map((entry, index) =>
      index === 0 ? { ...entry, parentId: builder.lastId } : entry,
    );
    const appended = await engine.request('POST', `/sessions/${builder.header.id}/entries`, {
      body: { entries },
    });
    expect(appended.status).toBe(200);
    await engine.app.get(SagaRunner).drain();
    const attempts = await engine.request('GET', `/sessions/${builder.header.id}/attempts`);
    expect(attempts.body).toMatchObject({
      items: [{ kind: 'compaction', trigger: 'threshold', outcome: 'completed' }],
    });
  });
});

describe('given an answer that failed because input and max_tokens exceed the window (Anthropic)', () => {
  const builder = session({ sessionId: 'overflowed' });
  builder.editTurns(6);
  let engine: HttpHarness;
  let failedId: string;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings });
    await engine.seed(builder.header, builder.entries);
    const next = session({ sessionId: 'overflowed', idPrefix: 'n' })
      .user('Next step')
      .assistantContent([], {
        stopReason: 'error',
        errorMessage:
          '400 {"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 197733 + 21333 > 200000, decrease input length or `max_tokens` and try again"}}',
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
      });
    failedId = next.lastId;
    const entries = next.entries.map((entry, index) =>
      index === 0 ? { ...entry, parentId: builder.lastId } : entry,
    );
    const appended = await engine.request('POST', '/sessions/overflowed/entries', { body: { entries } });
    expect(appended.status).toBe(200);
    await engine.app.get(SagaRunner).drain();
  });

  afterAll(() => engine.close());

  it('recovers with an overflow compaction', async () => {
    const attempts = await engine.request('GET', '/sessions/overflowed/attempts');
    expect(attempts.body).toMatchObject({
      items: [{ kind: 'compaction', trigger: 'overflow', outcome: 'completed' }],
    });
  });

  it('leaves the failed answer out of the rebuilt context in both formats, and keeps it in the log', async () => {
    for (const format of ['agent', 'llm']) {
      const context = await engine.request('GET', `/sessions/overflowed/context?format=${format}`);
      expect(context.status).toBe(200);
      const body = context.body as { messages: { role: string; stopReason?: string }[]; entryIds: unknown[] };
      expect(body.entryIds).not.toContain(failedId);
      expect(body.messages[body.messages.length - 1]).toMatchObject({ role: 'user' });
      expect(body.messages.filter((message) => message.stopReason === 'error')).toEqual([]);
    }
    const path = await engine.request('GET', '/sessions/overflowed/entries');
    expect(JSON.stringify(path.body)).toContain(failedId);
  });
});
