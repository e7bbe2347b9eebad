// End to end over real HTTP: every endpoint of the sessions API on a SQLite store, answers
// checked against the same zod schemas the OpenAPI document is generated from.
import type { EventStore } from '@strata/event-store';
import { buildSessionContext, serializeSessionFile, sessionStreamName } from '@strata/session';
import { ScriptedSummarizer, session, type SessionBuilder } from '@strata/testing';
import type { z } from 'zod';
import {
  abortResponse,
  appendEntriesResponse,
  attemptListResponse,
  compactionResponse,
  contextResponse,
  entriesResponse,
  importResponse,
  navigationResponse,
  sessionDetailResponse,
  sessionListResponse,
  setLabelResponse,
  startSessionResponse,
  treeResponse,
  verifySessionResponse,
  verifyTenantResponse,
} from '../../apps/engine/src/api/sessions/session-responses.schemas';
import { EVENT_STORE } from '../../apps/engine/src/shared/injection-tokens';
import { startHttpEngine, type ApiResponse, type HttpHarness } from './http-harness';

function fourTurns(builder: SessionBuilder): SessionBuilder {
  return builder.editTurns(4);
}

function answer<Schema extends z.ZodType>(
  response: ApiResponse,
  status: number,
  schema: Schema,
): z.output<Schema> {
  if (response.status !== status)
    throw new Error(`expected ${status}, got ${response.status}: ${response.text}`);
  return schema.parse(response.body);
}

const settings = { compaction: { keepRecentTokens: 250 } };

describe('given a single-tenant engine with one session of four edit turns', () => {
  const builder = fourTurns(session({ sessionId: 'session-api-1', cwd: '/work/alpha' }));
  const sessionId = builder.header.id;
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings });
  });

  afterAll(() => engine.close());

  it('starts the session (201), and answers a repeated start with the stored header (200)', async () => {
    const first = answer(
      await engine.request('POST', '/sessions', {
        body: { sessionId, cwd: '/work/alpha', title: 'Alpha work' },
      }),
      201,
      startSessionResponse,
    );
    expect(first).toMatchObject({ sessionId, alreadyStarted: false, revision: '0' });
    expect(first.header).toMatchObject({
      id: sessionId,
      cwd: '/work/alpha',
      title: 'Alpha work',
      version: 3,
    });

    const again = answer(
      await engine.request('POST', '/sessions', {
        body: { sessionId, cwd: '/work/alpha', title: 'Alpha work' },
      }),
      200,
      startSessionResponse,
    );
    expect(again).toMatchObject({ alreadyStarted: true, header: first.header });
  });

  it('appends the entries as one batch and reports the leaf and revision', async () => {
    const appended = answer(
      await engine.request('POST', `/sessions/${sessionId}/entries`, { body: { entries: builder.entries } }),
      200,
      appendEntriesResponse,
    );
    expect(appended.entryIds).toEqual(builder.entries.map((entry) => entry.id));
    expect(appended).toMatchObject({
      leafId: builder.lastId,
      revision: String(builder.entries.length),
      alreadyAppended: false,
    });
  });

  it('lists the session with its counts, filtered by text and paged', async () => {
    await engine.request('POST', '/sessions', {
      body: { sessionId: 'session-api-other', cwd: '/work/beta' },
    });
    const all = answer(await engine.request('GET', '/sessions'), 200, sessionListResponse);
    expect(all.total).toBe(2);
    const mine = all.items.find((item) => item.sessionId === sessionId);
    expect(mine).toMatchObject({ tenant: 'default', title: 'Alpha work', entryCount: 16, messageCount: 16 });

    const filtered = answer(await engine.request('GET', '/sessions?text=ALPHA'), 200, sessionListResponse);
    expect(filtered.items.map((item) => item.sessionId)).toEqual([sessionId]);

    const firstPage = answer(await engine.request('GET', '/sessions?limit=1'), 200, sessionListResponse);
    expect(firstPage.items).toHaveLength(1);
    expect(firstPage.nextCursor).not.toBeNull();
    const secondPage = answer(
      await engine.request('GET', `/sessions?limit=1&cursor=${firstPage.nextCursor}`),
      200,
      sessionListResponse,
    );
    expect(secondPage.items).toHaveLength(1);
    expect(secondPage.items[0]?.sessionId).not.toBe(firstPage.items[0]?.sessionId);
  });

  it('gets one session with its header, leaf and revision', async () => {
    const detail = answer(await engine.request('GET', `/sessions/${sessionId}`), 200, sessionDetailResponse);
    expect(detail).toMatchObject({ sessionId, leafId: builder.lastId, entryCount: 16, revision: '16' });
    expect(detail.header.id).toBe(sessionId);
  });

  it('answers the context at the current leaf exactly as buildSessionContext, with token counts', async () => {
    const context = answer(
      await engine.request('GET', `/sessions/${sessionId}/context`),
      200,
      contextResponse,
    );
    const expected = buildSessionContext(builder.entries, builder.lastId);
    expect(context.messages).toEqual(JSON.parse(JSON.stringify(expected.messages)));
    expect(context).toMatchObject({
      format: 'agent',
      leafId: builder.lastId,
      tokenCounter: 'chars4',
      asOf: null,
    });
    expect(context.messageTokens).toHaveLength(expected.messages.length);
    expect(context.tokens).toBe(context.messageTokens.reduce((total, count) => total + count, 0));
  });

  it('answers the context at another leaf, in the provider format, and as of an earlier position', async () => {
    const leaf = builder.entries[3]!.id;
    const atLeaf = answer(
      await engine.request('GET', `/sessions/${sessionId}/context?leaf=${leaf}`),
      200,
      contextResponse,
    );
    expect(atLeaf.messages).toEqual(
      JSON.parse(JSON.stringify(buildSessionContext(builder.entries, leaf).messages)),
    );

    const llm = answer(
      await engine.request('GET', `/sessions/${sessionId}/context?format=llm`),
      200,
      contextResponse,
    );
    expect(new Set(llm.messages.map((message) => message.role))).toEqual(
      new Set(['user', 'assistant', 'toolResult']),
    );

    const started = answer(await engine.request('GET', `/sessions/${sessionId}/tree`), 200, treeResponse);
    const asOfStart = answer(
      await engine.request('GET', `/sessions/${sessionId}/context?asOf=${BigInt(started.position) - 16n}`),
      200,
      contextResponse,
    );
    expect(asOfStart).toMatchObject({ messages: [], leafId: null, revision: '0' });
  });

  it('answers the tree as flat nodes and the entries paged or along a path', async () => {
    const tree = answer(await engine.request('GET', `/sessions/${sessionId}/tree`), 200, treeResponse);
    expect(tree.nodes).toHaveLength(16);
    expect(tree.rootIds).toEqual([builder.entries[0]!.id]);
    expect(tree.nodes[0]?.childIds).toEqual([builder.entries[1]!.id]);

    const page = answer(
      await engine.request('GET', `/sessions/${sessionId}/entries?offset=2&limit=3`),
      200,
      entriesResponse,
    );
    expect(page.items.map((entry) => entry.id)).toEqual(builder.entries.slice(2, 5).map((entry) => entry.id));
    expect(page).toMatchObject({ total: 16, offset: 2, limit: 3 });

    const path = answer(
      await engine.request('GET', `/sessions/${sessionId}/entries?leaf=${builder.entries[2]!.id}`),
      200,
      entriesResponse,
    );
    expect(path.items.map((entry) => entry.id)).toEqual(builder.entries.slice(0, 3).map((entry) => entry.id));
  });

  it('labels an entry, and the tree shows the label', async () => {
    const target = builder.entries[0]!.id;
    const labelled = answer(
      await engine.request('POST', `/sessions/${sessionId}/labels`, {
        body: { targetId: target, label: 'start' },
      }),
      200,
      setLabelResponse,
    );
    expect(labelled.entry).toMatchObject({ type: 'label', targetId: target, label: 'start' });
    const tree = answer(await engine.request('GET', `/sessions/${sessionId}/tree`), 200, treeResponse);
    expect(tree.nodes.find((node) => node.id === target)?.label).toBe('start');
  });

  it('compacts with the offline summariser, and the context then opens with the summary', async () => {
    const before = answer(
      await engine.request('GET', `/sessions/${sessionId}/context`),
      200,
      contextResponse,
    );
    const result = answer(
      await engine.request('POST', `/sessions/${sessionId}/compact`, {
        body: { customInstructions: 'Keep module names' },
      }),
      200,
      compactionResponse,
    );
    if (result.outcome !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(result)}`);
    expect(result.trigger).toBe('manual');
    const context = answer(
      await engine.request('GET', `/sessions/${sessionId}/context`),
      200,
      contextResponse,
    );
    expect(context.compactionId).toBe(result.entry.id);
    expect(context.messages[0]).toMatchObject({ role: 'compactionSummary', summary: result.entry.summary });
    const asBefore = answer(
      await engine.request('GET', `/sessions/${sessionId}/context?asOf=${before.position}`),
      200,
      contextResponse,
    );
    expect(asBefore).toEqual({ ...before, asOf: before.position });

    const attempts = answer(
      await engine.request('GET', `/sessions/${sessionId}/attempts`),
      200,
      attemptListResponse,
    );
    expect(attempts.items).toEqual([
      expect.objectContaining({
        attemptId: result.attemptId,
        kind: 'compaction',
        outcome: 'completed',
        trigger: 'manual',
      }),
    ]);
    const everywhere = answer(
      await engine.request('GET', '/attempts?kind=compaction'),
      200,
      attemptListResponse,
    );
    expect(everywhere.total).toBe(1);
  });

  it('navigates to an earlier entry and moves the leaf there', async () => {
    const target = builder.entries[7]!.id;
    const navigated = answer(
      await engine.request('POST', `/sessions/${sessionId}/navigate`, { body: { targetId: target } }),
      200,
      navigationResponse,
    );
    expect(navigated).toMatchObject({ outcome: 'navigated', leafId: target });
    const detail = answer(await engine.request('GET', `/sessions/${sessionId}`), 200, sessionDetailResponse);
    expect(detail.leafId).toBe(target);
  });

  it('answers an abort with nothing running with no attempts', async () => {
    const aborted = answer(
      await engine.request('POST', `/sessions/${sessionId}/abort`, { body: {} }),
      200,
      abortResponse,
    );
    expect(aborted).toEqual({ sessionId, abortedAttemptIds: [] });
  });

  it('exports the session as pi v3 JSON Lines, and importing that file again changes nothing', async () => {
    const exported = await engine.request('GET', `/sessions/${sessionId}/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = exported.text.trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'session', id: sessionId, version: 3 });
    expect(lines.length).toBeGreaterThan(16);

    const reimported = answer(
      await engine.request('POST', '/sessions/import', {
        rawBody: exported.text,
        contentType: 'application/x-ndjson',
      }),
      200,
      importResponse,
    );
    expect(reimported).toMatchObject({ sessionId, outcome: 'unchanged', eventsWritten: 0 });
  });

  it('imports a new pi file (201) and serves it', async () => {
    const other = fourTurns(session({ sessionId: 'session-api-imported' }));
    const imported = answer(
      await engine.request('POST', '/sessions/import', {
        rawBody: serializeSessionFile(other.header, other.entries),
        contentType: 'application/x-ndjson',
      }),
      201,
      importResponse,
    );
    expect(imported).toMatchObject({
      sessionId: 'session-api-imported',
      outcome: 'imported',
      entryCount: 16,
    });
    const context = answer(
      await engine.request('GET', '/sessions/session-api-imported/context'),
      200,
      contextResponse,
    );
    expect(context.leafId).toBe(other.lastId);
  });

  it('verifies the hash chain of one session and of every session of the tenant', async () => {
    const one = answer(
      await engine.request('GET', `/sessions/${sessionId}/verify`),
      200,
      verifySessionResponse,
    );
    expect(one).toMatchObject({ sessionId, ok: true, brokenAt: null });
    expect(one.events).toBeGreaterThan(16);
    const all = answer(await engine.request('GET', '/verify'), 200, verifyTenantResponse);
    expect(all).toMatchObject({ ok: true, sessions: 3, broken: [] });
  });
});

describe('given a compaction held by the summariser', () => {
  const builder = fourTurns(session({ sessionId: 'session-api-abort' }));
  let engine: HttpHarness;
  let summarizer: ScriptedSummarizer;

  beforeAll(async () => {
    summarizer = new ScriptedSummarizer();
    engine = await startHttpEngine({ settings, summarizers: [summarizer] });
    await engine.seed(builder.header, builder.entries);
  });

  afterAll(() => engine.close());

  it('aborts it over HTTP, and the compaction request answers cancelled', async () => {
    summarizer.hold();
    const compaction = engine.request('POST', '/sessions/session-api-abort/compact', { body: {} });
    await summarizer.whenCalled();
    const aborted = answer(
      await engine.request('POST', '/sessions/session-api-abort/abort', { body: { kind: 'compaction' } }),
      200,
      abortResponse,
    );
    expect(aborted.abortedAttemptIds).toHaveLength(1);
    const result = answer(await compaction, 200, compactionResponse);
    expect(result).toMatchObject({ outcome: 'cancelled', attemptId: aborted.abortedAttemptIds[0] });
    summarizer.release();
  });
});

describe('given a session whose context fits in the keep budget (issue 13.4)', () => {
  const builder = session({ sessionId: 'session-api-force' })
    .user('Rename the module')
    .assistant('Renamed.')
    .user('Now add a test')
    .assistantToolCalls([{ name: 'write', arguments: { path: 'test/module.spec.ts' } }])
    .toolResult('write', 'written')
    .assistant('Added.');
  const lastTurn = builder.entries[2]!.id;
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings: { compaction: { keepRecentTokens: 20000 } } });
    await engine.seed(builder.header, builder.entries);
  });

  afterAll(() => engine.close());

  it('skips without force, and with force: true compacts, keeping the last turn only', async () => {
    const unforced = answer(
      await engine.request('POST', '/sessions/session-api-force/compact', { body: {} }),
      200,
      compactionResponse,
    );
    expect(unforced).toMatchObject({ outcome: 'skipped', reason: 'nothing_to_summarize' });

    const forced = answer(
      await engine.request('POST', '/sessions/session-api-force/compact', {
        body: { force: true, attemptId: 'forced-1' },
      }),
      200,
      compactionResponse,
    );
    if (forced.outcome !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(forced)}`);
    expect(forced.entry.firstKeptEntryId).toBe(lastTurn);
    const context = answer(
      await engine.request('GET', '/sessions/session-api-force/context'),
      200,
      contextResponse,
    );
    expect(context.messages.map((message) => message.role)).toEqual([
      'compactionSummary',
      'user',
      'assistant',
      'toolResult',
      'assistant',
    ]);
    expect(context.entryIds.slice(1)).toEqual(builder.entries.slice(2).map((entry) => entry.id));
  });

  it('records force on the attempt, and refuses the same attempt id without it', async () => {
    const store = engine.app.get<EventStore>(EVENT_STORE);
    const starts: unknown[] = [];
    for await (const event of store.readStream(sessionStreamName('session-api-force'))) {
      if (event.type === 'CompactionStarted') starts.push(event.data);
    }
    expect(starts).toEqual([
      expect.not.objectContaining({ force: expect.anything() }),
      expect.objectContaining({ attemptId: 'forced-1', force: true }),
    ]);
    const unforcedAgain = await engine.request('POST', '/sessions/session-api-force/compact', {
      body: { attemptId: 'forced-1' },
    });
    expect(unforcedAgain.status).toBe(409);
    expect(unforcedAgain.body).toMatchObject({ reason: 'idempotency_mismatch' });
  });
});
