// End to end over real HTTP: what a host writing a session learns from a refused append. A
// leaf conflict names the leaf and revision to retry from; a tool result that answers no call
// pending at its parent is refused naming the call, and nothing of its batch is written.
import type { SessionEntry } from '@strata/session';
import { problemOf, startHttpEngine, type HttpHarness } from './http-harness';
import { callEntry, resultEntry, userEntry } from './host-turns';

describe('given an engine and a session with one tool round trip', () => {
  let engine: HttpHarness;
  const sessionId = 'host-writes-1';

  beforeAll(async () => {
    engine = await startHttpEngine();
    const started = await engine.request('POST', '/sessions', { body: { sessionId, cwd: '/work' } });
    expect(started.status).toBe(201);
  });

  afterAll(() => engine.close());

  const append = (entries: readonly SessionEntry[], extra: Record<string, unknown> = {}) =>
    engine.request('POST', `/sessions/${sessionId}/entries`, { body: { entries, ...extra } });

  it('answers a leaf conflict with the current leaf and revision as fields', async () => {
    const first = await append([
      userEntry('u1', null),
      callEntry('a1', 'u1', 'c1'),
      resultEntry('t1', 'a1', 'c1'),
    ]);
    expect(first.status).toBe(200);
    const { leafId, revision } = first.body as { leafId: string; revision: string };

    const stale = await append([userEntry('u2', 'a1')], { expectedLeafId: 'a1' });

    expect(stale.status).toBe(409);
    expect(problemOf(stale)).toMatchObject({
      code: 'conflict',
      reason: 'leaf_conflict',
      currentLeafId: leafId,
      currentRevision: revision,
    });
  });

  it('refuses a tool result whose call is already answered, naming the call, and writes none of its batch', async () => {
    const refused = await append([userEntry('u3', 't1'), resultEntry('t3', 'u3', 'c1')]);

    expect(refused.status).toBe(409);
    expect(problemOf(refused)).toMatchObject({
      reason: 'tool_result_unpaired',
      toolCallId: 'c1',
      entryId: 't3',
    });
    const entries = await engine.request('GET', `/sessions/${sessionId}/entries`);
    const ids = (entries.body as { items: { id: string }[] }).items.map((entry) => entry.id);
    expect(ids).not.toContain('u3');
  });

  it('accepts the result of a call pending at its parent, in the same batch or the next', async () => {
    const call = await append([userEntry('u4', 't1'), callEntry('a4', 'u4', 'c4')]);
    expect(call.status).toBe(200);
    const result = await append([resultEntry('t4', 'a4', 'c4')], { expectedLeafId: 'a4' });
    expect(result.status).toBe(200);
  });
});
