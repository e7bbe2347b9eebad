// End to end over real HTTP: who wrote each event (issue 13, item 5). Every event written on
// behalf of a request records the API key's name as `actor` (an unnamed key by the start of its
// hash, a single-tenant engine's caller as `anonymous`), and the caller's `X-Strata-Actor` beside
// it as `onBehalfOf`, never instead of it; what the sagas write on their own records the engine.
import type { RecordedEvent } from '@strata/event-store';
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import { hashApiKey } from '../../apps/engine/src/tenancy/api-keys';
import {
  problemOf,
  startHttpEngine,
  storedEventsOf,
  turnOverThreshold,
  type HttpHarness,
} from './http-harness';

const HOST_KEY = 'agent-host-key-0123456789';
const UNNAMED_KEY = 'unnamed-key-0123456789ab';
const KEYS = `alpha:agent-host:${HOST_KEY} alpha:${UNNAMED_KEY}`;
const settings = {
  compaction: { keepRecentTokens: 250, reserveTokens: 2000, autoContinue: false },
  branchSummary: { enabled: true },
  models: { defaultContextWindow: 10000 },
};

function whoWrote(events: readonly RecordedEvent[]): { type: string; actor: unknown; onBehalfOf: unknown }[] {
  return events.map((event) => ({
    type: event.type,
    actor: event.metadata['actor'],
    onBehalfOf: event.metadata['onBehalfOf'],
  }));
}

describe('given an engine with a named and an unnamed key of one tenant', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings, environment: { STRATA_API_KEYS: KEYS } });
  });

  afterAll(() => engine.close());

  it('records the key name as actor of every event of every write, and X-Strata-Actor beside it', async () => {
    const builder = session({ sessionId: 'actor-writes' }).editTurns(4);
    const asHost = { key: HOST_KEY, headers: { 'x-strata-actor': 'user-42@example.com' } };
    const started = await engine.request('POST', '/sessions', {
      body: { sessionId: 'actor-writes', cwd: '/work' },
      ...asHost,
    });
    expect(started.status).toBe(201);
    const requests: [string, unknown][] = [
      ['/entries', { entries: builder.entries }],
      ['/labels', { targetId: builder.entries[0]!.id, label: 'start' }],
      ['/compact', { customInstructions: 'keep the file names' }],
      ['/navigate', { targetId: builder.entries[3]!.id, summarize: true }],
      ['/navigate', { targetId: builder.entries[1]!.id }],
    ];
    for (const [path, body] of requests) {
      const answer = await engine.request('POST', `/sessions/actor-writes${path}`, { body, ...asHost });
      expect([path, answer.status]).toEqual([path, 200]);
    }
    const events = await storedEventsOf(engine, 'actor-writes');
    const types = new Set(events.map((event) => event.type));
    for (const type of ['SessionStarted', 'EntryAppended', 'CompactionStarted', 'CompactionCompleted'])
      expect(types).toContain(type);
    for (const type of ['BranchSummaryStarted', 'BranchSummaryCompleted', 'LeafMoved'])
      expect(types).toContain(type);
    expect(whoWrote(events)).toEqual(
      events.map((event) => ({ type: event.type, actor: 'agent-host', onBehalfOf: 'user-42@example.com' })),
    );
    const verified = await engine.request('GET', '/sessions/actor-writes/verify', { key: HOST_KEY });
    expect(verified.body).toMatchObject({ ok: true });
  });

  it('records an unnamed key by the start of its hash, and no onBehalfOf without the header', async () => {
    const builder = session({ sessionId: 'actor-unnamed' }).editTurns(1);
    await engine.seed(builder.header, builder.entries, UNNAMED_KEY);
    const events = await storedEventsOf(engine, 'actor-unnamed');
    const actor = `key:${hashApiKey(UNNAMED_KEY).slice(0, 12)}`;
    expect(whoWrote(events)).toEqual(
      events.map((event) => ({ type: event.type, actor, onBehalfOf: undefined })),
    );
  });

  it('records the key name on the events of an imported file', async () => {
    const builder = session({ sessionId: 'actor-import' }).editTurns(1);
    const imported = await engine.request('POST', '/sessions/import', {
      rawBody: serializeSessionFile(builder.header, builder.entries),
      contentType: 'application/x-ndjson',
      key: HOST_KEY,
      headers: { 'x-strata-actor': 'migration-job' },
    });
    expect(imported.status).toBe(201);
    const events = await storedEventsOf(engine, 'actor-import');
    expect(whoWrote(events)).toEqual(
      events.map((event) => ({ type: event.type, actor: 'agent-host', onBehalfOf: 'migration-job' })),
    );
  });

  it("records the engine as actor of what a saga writes, and the request's actor on what the request wrote", async () => {
    const builder = session({ sessionId: 'actor-saga' }).editTurns(6);
    await engine.seed(builder.header, builder.entries, HOST_KEY);
    const entries = turnOverThreshold('actor-saga', builder.lastId);
    const appended = await engine.request('POST', '/sessions/actor-saga/entries', {
      body: { entries },
      key: HOST_KEY,
      headers: { 'x-strata-actor': 'user-7' },
    });
    expect(appended.status).toBe(200);
    await engine.app.get(SagaRunner).drain();
    const events = await storedEventsOf(engine, 'actor-saga');
    const sagaTypes = ['CompactionStarted', 'CompactionCompleted'];
    expect(events.filter((event) => sagaTypes.includes(event.type)).map((event) => event.type)).toEqual(
      sagaTypes,
    );
    const byRequest = (event: RecordedEvent): boolean =>
      !sagaTypes.includes(event.type) &&
      !(
        event.type === 'EntryAppended' &&
        (event.data as { entry: { type: string } }).entry.type === 'compaction'
      );
    expect(whoWrote(events.filter((event) => !byRequest(event)))).toEqual(
      events
        .filter((event) => !byRequest(event))
        .map((event) => ({ type: event.type, actor: 'strata-engine', onBehalfOf: undefined })),
    );
    expect(whoWrote(events.filter(byRequest)).slice(-2)).toEqual([
      { type: 'EntryAppended', actor: 'agent-host', onBehalfOf: 'user-7' },
      { type: 'EntryAppended', actor: 'agent-host', onBehalfOf: 'user-7' },
    ]);
  });

  it.each([
    ['longer than 256 characters', 'u'.repeat(257)],
    ['with a tab', 'user\t42'],
  ])('answers 400 to an X-Strata-Actor %s and writes nothing', async (_case, value) => {
    const answer = await engine.request('POST', '/sessions', {
      body: { sessionId: 'actor-refused', cwd: '/work' },
      key: HOST_KEY,
      headers: { 'x-strata-actor': value },
    });
    expect(answer.status).toBe(400);
    expect(problemOf(answer)).toMatchObject({
      code: 'validation',
      errors: [{ path: 'header.x-strata-actor' }],
    });
    const missing = await engine.request('GET', '/sessions/actor-refused', { key: HOST_KEY });
    expect(missing.status).toBe(404);
  });
});

describe('given a single-tenant engine (no keys)', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine();
  });

  afterAll(() => engine.close());

  it('records the caller as anonymous, with X-Strata-Actor beside it', async () => {
    const started = await engine.request('POST', '/sessions', {
      body: { sessionId: 'actor-single', cwd: '/work' },
      headers: { 'x-strata-actor': 'ops' },
    });
    expect(started.status).toBe(201);
    expect(whoWrote(await storedEventsOf(engine, 'actor-single'))).toEqual([
      { type: 'SessionStarted', actor: 'anonymous', onBehalfOf: 'ops' },
    ]);
  });
});
