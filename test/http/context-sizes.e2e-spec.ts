// GET /sessions/{id}/context-sizes over real HTTP: each answer's reported context with the
// answering model's window and the threshold, and the compactions and branch summaries the
// engine wrote placed after the turns before them; another tenant's session is not found.
import { session } from '@strata/testing';
import { contextSizesResponse } from '../../apps/engine/src/api/sessions/session-responses.schemas';
import { ALPHA_KEY, BETA_KEY, TWO_TENANT_KEYS, startHttpEngine, type HttpHarness } from './http-harness';

const usage = (input: number) => ({
  input,
  output: 100,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + 100,
});

describe('GET /sessions/{id}/context-sizes', () => {
  let engine: HttpHarness;
  const builder = session({ sessionId: 'context-sizes' });
  for (let turn = 1; turn <= 4; turn += 1) {
    builder
      .user(`question ${turn} `.repeat(40))
      .assistant(`answer ${turn} `.repeat(40), { usage: usage(turn * 1_000) });
  }

  beforeAll(async () => {
    engine = await startHttpEngine({
      environment: { STRATA_API_KEYS: TWO_TENANT_KEYS },
      settings: {
        compaction: { enabled: false, reserveTokens: 2_000, keepRecentTokens: 100 },
        branchSummary: { enabled: true },
        models: { defaultContextWindow: 50_000 },
      },
    });
    await engine.seed(builder.header, builder.entries, ALPHA_KEY);
    const compacted = await engine.request('POST', '/sessions/context-sizes/compact', {
      body: {},
      key: ALPHA_KEY,
    });
    expect(compacted.body).toMatchObject({ outcome: 'completed' });
  });

  afterAll(async () => {
    await engine?.close();
  });

  it('answers every answer with its reported context, window and threshold, and the compaction after the fourth', async () => {
    const answer = await engine.request('GET', '/sessions/context-sizes/context-sizes', { key: ALPHA_KEY });
    expect(answer.status).toBe(200);
    const sizes = contextSizesResponse.parse(answer.body);
    expect(sizes.turns.map((turn) => [turn.contextTokens, turn.contextWindow, turn.threshold])).toEqual([
      [1_100, 50_000, 48_000],
      [2_100, 50_000, 48_000],
      [3_100, 50_000, 48_000],
      [4_100, 50_000, 48_000],
    ]);
    expect(sizes.marks).toEqual([
      expect.objectContaining({ type: 'compaction', turn: 4, index: 8 }) as unknown,
    ]);
  });

  it('marks a branch summary written by a navigation after the turns before it', async () => {
    const targetId = builder.entries[3]!.id;
    const navigated = await engine.request('POST', '/sessions/context-sizes/navigate', {
      body: { targetId, summarize: true },
      key: ALPHA_KEY,
    });
    expect(navigated.body).toMatchObject({ outcome: 'navigated' });
    const sizes = contextSizesResponse.parse(
      (await engine.request('GET', '/sessions/context-sizes/context-sizes', { key: ALPHA_KEY })).body,
    );
    expect(sizes.marks.map((mark) => [mark.type, mark.turn])).toEqual([
      ['compaction', 4],
      ['branch_summary', 4],
    ]);
  });

  it("answers 404 for another tenant's session", async () => {
    const answer = await engine.request('GET', '/sessions/context-sizes/context-sizes', { key: BETA_KEY });
    expect(answer.status).toBe(404);
  });
});
