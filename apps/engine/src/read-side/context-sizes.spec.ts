import { session } from '@strata/testing';
import { parseEngineSettings } from '../settings/engine-settings';
import { contextSizesOf } from './context-sizes';

const engine = parseEngineSettings({
  compaction: { reserveTokens: 10_000 },
  models: { defaultContextWindow: 100_000, contextWindows: { 'anthropic/big': 200_000 } },
});

describe('given a session with answers, a compaction, a settings entry and a branch summary', () => {
  const builder = session()
    .user('one')
    .assistant('a1', {
      usage: { input: 1_000, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 1_100 },
    })
    .user('two')
    .assistant('a2', {
      usage: { input: 5_000, output: 200, cacheRead: 3_000, cacheWrite: 0, totalTokens: 0 },
    });
  const [, first] = builder.entries;
  builder
    .compaction({ firstKeptEntryId: first!.id, tokensBefore: 8_200 })
    .custom('strata.settings', { compaction: { reserveTokens: 20_000 } })
    .assistant('a3', {
      provider: 'anthropic',
      model: 'big',
      usage: { input: 900, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 900 },
    })
    .assistant('aborted with no usage', {
      stopReason: 'aborted',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
    })
    .branchSummary(first!.id, 'left behind');
  const sizes = contextSizesOf(builder.entries, engine);

  it('gives each answer its reported context, its model window and the threshold then in force', () => {
    expect(
      sizes.turns.map(({ contextTokens, contextWindow, reserveTokens, threshold, model }) => ({
        contextTokens,
        contextWindow,
        reserveTokens,
        threshold,
        model,
      })),
    ).toEqual([
      {
        contextTokens: 1_100,
        contextWindow: 100_000,
        reserveTokens: 10_000,
        threshold: 90_000,
        model: 'anthropic/claude-sonnet-4-5',
      },
      {
        contextTokens: 8_200,
        contextWindow: 100_000,
        reserveTokens: 10_000,
        threshold: 90_000,
        model: 'anthropic/claude-sonnet-4-5',
      },
      {
        contextTokens: 900,
        contextWindow: 200_000,
        reserveTokens: 20_000,
        threshold: 180_000,
        model: 'anthropic/big',
      },
    ]);
    expect(sizes.turns.map((turn) => builder.entries[turn.index]?.id)).toEqual(
      sizes.turns.map((turn) => turn.entryId),
    );
  });

  it('marks the compaction after two turns and the branch summary after three', () => {
    expect(sizes.marks.map(({ type, turn, tokensBefore }) => ({ type, turn, tokensBefore }))).toEqual([
      { type: 'compaction', turn: 2, tokensBefore: 8_200 },
      { type: 'branch_summary', turn: 3, tokensBefore: null },
    ]);
  });
});
