// End to end over real HTTP: what was asked (issue 13, item 6). The `customInstructions` of a
// compaction and of a summarised navigation are stored on the attempt's start event and shown in
// the audit (`GET /sessions/{id}/attempts`) with who asked; a navigation that asked for a summary
// and got none (`summaryDeclined`) records why, and the instructions given, on its `LeafMoved`,
// which the event stream's `session_tree` carries. Whether a compaction was forced is in the
// audit too (issue 25).
import { MAX_CUSTOM_INSTRUCTIONS_LENGTH } from '@strata/session';
import { session } from '@strata/testing';
import { problemOf, startHttpEngine, storedEventsOf, type HttpHarness } from './http-harness';
import { openEventStream } from './sse-client';

const HOST_KEY = 'agent-host-key-0123456789';
const keys = { STRATA_API_KEYS: `alpha:agent-host:${HOST_KEY}` };
const asHost = { key: HOST_KEY, headers: { 'x-strata-actor': 'user-42' } };

describe('given an engine with branch summaries on', () => {
  let engine: HttpHarness;
  const builder = session({ sessionId: 'asked' }).editTurns(4);

  beforeAll(async () => {
    engine = await startHttpEngine({
      environment: keys,
      settings: { compaction: { keepRecentTokens: 250 }, branchSummary: { enabled: true } },
    });
    await engine.seed(builder.header, builder.entries, HOST_KEY);
  });

  afterAll(() => engine.close());

  it('stores the instructions of a compaction on its start and shows them in the audit with who asked', async () => {
    const compacted = await engine.request('POST', '/sessions/asked/compact', {
      body: { customInstructions: 'Keep every file name.', attemptId: 'compact-1' },
      ...asHost,
    });
    expect(compacted.body).toMatchObject({ outcome: 'completed' });
    const [started] = await storedEventsOf(engine, 'asked', 'CompactionStarted');
    expect(started?.data).toMatchObject({
      attemptId: 'compact-1',
      customInstructions: 'Keep every file name.',
    });
    const audit = await engine.request('GET', '/sessions/asked/attempts', { key: HOST_KEY });
    expect(audit.body).toMatchObject({
      items: [
        {
          attemptId: 'compact-1',
          customInstructions: 'Keep every file name.',
          actor: 'agent-host',
          onBehalfOf: 'user-42',
        },
      ],
    });
  });

  it('stores the instructions of a summarised navigation on its start and shows them in the audit', async () => {
    const navigated = await engine.request('POST', '/sessions/asked/navigate', {
      body: {
        targetId: builder.entries[3]!.id,
        summarize: true,
        customInstructions: 'Only the failures.',
        attemptId: 'branch-1',
      },
      key: HOST_KEY,
    });
    expect(navigated.body).toMatchObject({ outcome: 'navigated', summary: { attemptId: 'branch-1' } });
    const [started] = await storedEventsOf(engine, 'asked', 'BranchSummaryStarted');
    expect(started?.data).toMatchObject({ attemptId: 'branch-1', customInstructions: 'Only the failures.' });
    const audit = await engine.request('GET', '/sessions/asked/attempts?kind=branch_summary', {
      key: HOST_KEY,
    });
    expect(audit.body).toMatchObject({
      items: [
        {
          attemptId: 'branch-1',
          customInstructions: 'Only the failures.',
          actor: 'agent-host',
          onBehalfOf: null,
        },
      ],
    });
  });

  it('records a summary declined because there was nothing to summarise on the leaf move', async () => {
    const other = session({ sessionId: 'asked-nothing' }).editTurns(2);
    await engine.seed(other.header, other.entries, HOST_KEY);
    const back = await engine.request('POST', '/sessions/asked-nothing/navigate', {
      body: { targetId: other.entries[2]!.id },
      key: HOST_KEY,
    });
    const { leafId: ancestor } = back.body as { leafId: string };
    // Back down to the leaf left: the branch left behind (from an ancestor) holds nothing.
    const moved = await engine.request('POST', '/sessions/asked-nothing/navigate', {
      body: { targetId: other.lastId, summarize: true, customInstructions: 'Anything.' },
      key: HOST_KEY,
    });
    expect(moved.body).toMatchObject({ outcome: 'navigated', summaryDeclined: 'nothing_to_summarize' });
    const moves = await storedEventsOf(engine, 'asked-nothing', 'LeafMoved');
    expect(moves.at(-1)?.data).toEqual({
      leafId: other.lastId,
      previousLeafId: ancestor,
      summaryDeclined: 'nothing_to_summarize',
      customInstructions: 'Anything.',
    });
  });

  it('shows in the audit whether a compaction was forced (issue 25)', async () => {
    const small = session({ sessionId: 'asked-forced' }).editTurns(2);
    await engine.seed(small.header, small.entries, HOST_KEY);
    for (const body of [{ attemptId: 'plain-1' }, { attemptId: 'forced-1', force: true }]) {
      await engine.request('POST', '/sessions/asked-forced/compact', { body, key: HOST_KEY });
    }
    const audit = await engine.request('GET', '/sessions/asked-forced/attempts', { key: HOST_KEY });
    const items = (audit.body as { items: { attemptId: string; force: boolean }[] }).items;
    // Newest first.
    expect(items.map(({ attemptId, force }) => ({ attemptId, force }))).toEqual([
      { attemptId: 'forced-1', force: true },
      { attemptId: 'plain-1', force: false },
    ]);
  });

  it(`answers 400 to instructions longer than ${MAX_CUSTOM_INSTRUCTIONS_LENGTH} characters, and writes nothing`, async () => {
    const long = 'x'.repeat(MAX_CUSTOM_INSTRUCTIONS_LENGTH + 1);
    for (const [path, body] of [
      ['/compact', { customInstructions: long }],
      ['/navigate', { targetId: builder.entries[1]!.id, summarize: true, customInstructions: long }],
    ] as const) {
      const answer = await engine.request('POST', `/sessions/asked${path}`, { body, key: HOST_KEY });
      expect(problemOf(answer)).toMatchObject({
        code: 'validation',
        errors: [{ path: 'body.customInstructions' }],
      });
    }
    const audit = await engine.request('GET', '/sessions/asked/attempts', { key: HOST_KEY });
    expect((audit.body as { total: number }).total).toBe(2);
  });
});

describe('given an engine with branch summaries off', () => {
  let engine: HttpHarness;
  const builder = session({ sessionId: 'declined' }).editTurns(3);

  beforeAll(async () => {
    engine = await startHttpEngine({ environment: keys, settings: { branchSummary: { enabled: false } } });
    await engine.seed(builder.header, builder.entries, HOST_KEY);
  });

  afterAll(() => engine.close());

  it('records the declined summary (disabled) and its instructions on the leaf move, and streams them', async () => {
    const stream = await openEventStream(`${engine.url}/events?types=session_tree&from=start`, {
      'x-api-key': HOST_KEY,
    });
    const navigated = await engine.request('POST', '/sessions/declined/navigate', {
      body: { targetId: builder.entries[3]!.id, summarize: true, customInstructions: 'Only the failures.' },
      ...asHost,
    });
    expect(navigated.body).toMatchObject({ outcome: 'navigated', summaryDeclined: 'disabled' });
    const [moved] = await storedEventsOf(engine, 'declined', 'LeafMoved');
    expect(moved?.data).toEqual({
      leafId: builder.entries[3]!.id,
      previousLeafId: builder.lastId,
      summaryDeclined: 'disabled',
      customInstructions: 'Only the failures.',
    });
    expect(moved?.metadata).toMatchObject({ actor: 'agent-host', onBehalfOf: 'user-42' });
    const [tree] = await stream.waitForEvents(1);
    expect(tree?.json.data).toEqual({
      cause: 'leaf_moved',
      newLeafId: builder.entries[3]!.id,
      oldLeafId: builder.lastId,
      summaryDeclined: 'disabled',
      customInstructions: 'Only the failures.',
    });
    stream.close();
  });

  it('records nothing of a summary on a move that asked for none', async () => {
    const navigated = await engine.request('POST', '/sessions/declined/navigate', {
      body: { targetId: builder.entries[1]!.id },
      key: HOST_KEY,
    });
    expect(navigated.body).not.toHaveProperty('summaryDeclined');
    const moves = await storedEventsOf(engine, 'declined', 'LeafMoved');
    expect(moves.at(-1)?.data).toEqual({
      leafId: builder.entries[1]!.id,
      previousLeafId: builder.entries[3]!.id,
    });
  });
});
