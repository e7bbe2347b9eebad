// End to end over real HTTP, as an agent host drives the engine (issue 13, item 1): the threshold
// is checked when an answer ends the turn and before the next prompt, never in the middle of a
// tool loop; a compaction whose leaf moved on while it was summarised ends `skipped: stale`, and
// the next check point compacts the live branch.
import type { EventStore } from '@strata/event-store';
import { sessionStreamName, type SessionEntry } from '@strata/session';
import { ScriptedSummarizer, session, type SessionBuilder } from '@strata/testing';
import { SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import { EVENT_STORE } from '../../apps/engine/src/shared/injection-tokens';
import { startHttpEngine, type HttpHarness } from './http-harness';

/** A 10,000-token window less a 2,000-token reserve: the threshold is 8,000. */
const settings = {
  compaction: { keepRecentTokens: 250, reserveTokens: 2000, autoContinue: true },
  models: { defaultContextWindow: 10000 },
};
const over = (tokens: number) => ({ input: tokens - 100, output: 100, cacheRead: 0, cacheWrite: 0 });

interface AttemptView {
  readonly attemptId: string;
  readonly trigger: string;
  readonly outcome: string;
  readonly reason?: string | null;
}

describe('given an agent host appending a tool loop to a session near its window', () => {
  let engine: HttpHarness;
  let summarizer: ScriptedSummarizer;

  beforeEach(async () => {
    summarizer = new ScriptedSummarizer();
    engine = await startHttpEngine({ settings, summarizers: [summarizer] });
  });

  afterEach(() => engine.close());

  /** Appends the entries the builder made since `from`; the response. */
  async function appendSince(builder: SessionBuilder, from: number, expectedLeafId?: string) {
    const entries: readonly SessionEntry[] = builder.entries.slice(from);
    return engine.request('POST', `/sessions/${builder.header.id}/entries`, {
      body: { entries, ...(expectedLeafId !== undefined ? { expectedLeafId } : {}) },
    });
  }

  async function attemptsOf(sessionId: string): Promise<AttemptView[]> {
    await engine.app.get(SagaRunner).drain();
    const answer = await engine.request('GET', `/sessions/${sessionId}/attempts?order=oldest_first`);
    return (answer.body as { items: AttemptView[] }).items;
  }

  async function eventTypes(sessionId: string): Promise<string[]> {
    const store = engine.app.get<EventStore>(EVENT_STORE);
    const types: string[] = [];
    for await (const event of store.readStream(sessionStreamName(sessionId))) types.push(event.type);
    return types;
  }

  async function seeded(sessionId: string): Promise<SessionBuilder> {
    const builder = session({ sessionId }).editTurns(6);
    await engine.seed(builder.header, builder.entries);
    return builder;
  }

  it('does not compact at an answer that calls a tool, and the result is appended at the call', async () => {
    const builder = await seeded('loop-expected-leaf');
    let from = builder.entries.length;
    builder.user('Run the tests').assistantToolCalls([{ name: 'bash' }], { usage: over(8500) });
    const call = builder.lastId;
    expect((await appendSince(builder, from)).status).toBe(200);

    expect(await attemptsOf('loop-expected-leaf')).toEqual([]);
    expect(await eventTypes('loop-expected-leaf')).not.toContain('ContinuationRequested');

    from = builder.entries.length;
    builder.toolResult('bash', 'all 212 tests passed');
    const result = await appendSince(builder, from, call);
    expect(result.status).toBe(200);

    from = builder.entries.length;
    builder.assistant('The tests pass.', { usage: over(8600) });
    const answer = builder.lastId;
    expect((await appendSince(builder, from, builder.entries[from - 1]!.id)).status).toBe(200);

    const attempts = await attemptsOf('loop-expected-leaf');
    expect(attempts).toMatchObject([{ trigger: 'threshold', outcome: 'completed' }]);
    const context = await engine.request('GET', '/sessions/loop-expected-leaf/context');
    const body = context.body as { leafId: string; compactionId: string; messages: { role: string }[] };
    expect(body.compactionId).toBe(body.leafId);
    expect(body.messages[0]?.role).toBe('compactionSummary');
    const entries = await engine.request('GET', `/sessions/loop-expected-leaf/entries?leaf=${body.leafId}`);
    const path = (entries.body as { items: SessionEntry[] }).items;
    expect(path.at(-1)).toMatchObject({ type: 'compaction', parentId: answer });
    // The continuation follows the answer that ended the turn, once.
    const types = await eventTypes('loop-expected-leaf');
    expect(types.filter((type) => type === 'ContinuationRequested')).toHaveLength(1);
    expect(types.indexOf('ContinuationRequested')).toBeGreaterThan(types.indexOf('CompactionCompleted'));
  });

  it('keeps the tree one line when the host appends the tool result without expectedLeafId', async () => {
    const builder = await seeded('loop-no-expected-leaf');
    let from = builder.entries.length;
    builder.user('Run the tests').assistantToolCalls([{ name: 'bash' }], { usage: over(8500) });
    await appendSince(builder, from);
    await engine.app.get(SagaRunner).drain();

    from = builder.entries.length;
    builder.toolResult('bash', 'all 212 tests passed');
    expect((await appendSince(builder, from)).status).toBe(200);

    const tree = await engine.request('GET', '/sessions/loop-no-expected-leaf/tree');
    const nodes = (tree.body as { nodes: { id: string; childIds: string[] }[] }).nodes;
    expect(nodes.every((node) => node.childIds.length <= 1)).toBe(true);
    expect((tree.body as { leafId: string }).leafId).toBe(builder.lastId);
    expect(await attemptsOf('loop-no-expected-leaf')).toEqual([]);
  });

  it('ends a compaction whose leaf moved on while it was summarised as stale, and compacts at the prompt', async () => {
    const builder = await seeded('moved-on');
    let from = builder.entries.length;
    builder.user('Sum it up').assistant('Here is the summary.', { usage: over(8500) });
    const answer = builder.lastId;
    summarizer.hold();
    await appendSince(builder, from);
    await summarizer.whenCalled(1);

    // The host did not wait: its next prompt goes under its own last entry.
    from = builder.entries.length;
    builder.user('Now write the docs');
    const prompt = builder.lastId;
    expect((await appendSince(builder, from)).status).toBe(200);
    summarizer.release();

    const attempts = await attemptsOf('moved-on');
    expect(attempts).toMatchObject([
      { trigger: 'threshold', outcome: 'skipped', reason: 'stale' },
      { trigger: 'threshold', outcome: 'completed' },
    ]);
    const context = await engine.request('GET', '/sessions/moved-on/context');
    const body = context.body as { leafId: string; messages: { role: string; content?: unknown }[] };
    expect(body.messages[0]?.role).toBe('compactionSummary');
    expect(body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Now write the docs' });
    const tree = await engine.request('GET', '/sessions/moved-on/tree');
    const nodes = (tree.body as { nodes: { id: string; type: string; parentId: string | null }[] }).nodes;
    // The only compaction is on the live path, under the prompt; the answer keeps one child.
    expect(nodes.filter((node) => node.type === 'compaction')).toMatchObject([{ parentId: prompt }]);
    expect(nodes.filter((node) => node.parentId === answer)).toHaveLength(1);
    // A compaction made before a prompt asks for no continuation: the prompt is answered next.
    expect(await eventTypes('moved-on')).not.toContain('ContinuationRequested');
  });
});
