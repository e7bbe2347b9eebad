import { session } from '@strata/testing';
import type { SessionBuilder } from '@strata/testing';
import { charsPerFourCounter } from '../tokens/token-counter';
import { DEFAULT_PRUNING_SETTINGS } from './pruning-settings';
import { pruneToolOutputs } from './prune-tool-outputs';

const text = (tokens: number): string => 'x'.repeat(tokens * 4);
const counter = charsPerFourCounter;
/** Tokens a 10,000-token result saves: 10,000 − ceil(len("[Output truncated - 10000 tokens]") / 4). */
const SAVED_PER_RESULT = 10000 - 9;

/** One turn with a tool call and a 10,000-token result per tool name, oldest first. */
function withResults(builder: SessionBuilder, toolNames: readonly string[]): SessionBuilder {
  builder.user('go').assistantToolCalls(toolNames.map((name) => ({ name, arguments: {} })));
  for (const name of toolNames) builder.toolResult(name, text(10000));
  return builder.assistant('done');
}

describe('pruning settings', () => {
  it('default to 40,000 protected tokens, 20,000 minimum savings and the skill and read tools', () => {
    expect(DEFAULT_PRUNING_SETTINGS).toEqual({
      protectTokens: 40000,
      minimumSavings: 20000,
      protectedTools: ['skill', 'read'],
    });
  });
});

describe('pruneToolOutputs', () => {
  describe('given six results of 10,000 tokens', () => {
    const entries = withResults(session(), ['bash', 'bash', 'bash', 'bash', 'bash', 'bash']).entries;

    it('protects the newest 40,000 tokens (the result crossing the line included) and declines to save too little', () => {
      expect(pruneToolOutputs(entries, DEFAULT_PRUNING_SETTINGS, counter)).toEqual({
        kind: 'none',
        reason: 'below_minimum_savings',
        potentialSavings: 2 * SAVED_PER_RESULT,
      });
    });
  });

  describe('given seven results of 10,000 tokens', () => {
    const entries = withResults(session(), ['bash', 'grep', 'bash', 'bash', 'bash', 'bash', 'bash']).entries;

    it('prunes the three oldest, newest first, each with its notice', () => {
      expect(pruneToolOutputs(entries, DEFAULT_PRUNING_SETTINGS, counter)).toEqual({
        kind: 'prune',
        results: [
          {
            entryId: 'e0005',
            toolName: 'bash',
            tokens: 10000,
            notice: '[Output truncated - 10000 tokens]',
            tokensSaved: SAVED_PER_RESULT,
          },
          {
            entryId: 'e0004',
            toolName: 'grep',
            tokens: 10000,
            notice: '[Output truncated - 10000 tokens]',
            tokensSaved: SAVED_PER_RESULT,
          },
          {
            entryId: 'e0003',
            toolName: 'bash',
            tokens: 10000,
            notice: '[Output truncated - 10000 tokens]',
            tokensSaved: SAVED_PER_RESULT,
          },
        ],
        tokensSaved: 3 * SAVED_PER_RESULT,
      });
    });

    it('never prunes results of protected tools', () => {
      const protectedEntries = withResults(session(), [
        'read',
        'skill',
        'bash',
        'bash',
        'bash',
        'bash',
        'bash',
      ]).entries;
      expect(pruneToolOutputs(protectedEntries, DEFAULT_PRUNING_SETTINGS, counter)).toMatchObject({
        kind: 'none',
        reason: 'below_minimum_savings',
        potentialSavings: SAVED_PER_RESULT,
      });
    });

    it('counts results pruned earlier at the size of their notice and never proposes them again', () => {
      const decision = pruneToolOutputs(
        entries,
        DEFAULT_PRUNING_SETTINGS,
        counter,
        new Map([['e0009', { prunedAt: 1, tokens: 10000 }]]),
      );
      expect(decision).toEqual({
        kind: 'none',
        reason: 'below_minimum_savings',
        potentialSavings: 2 * SAVED_PER_RESULT,
      });
    });
  });

  describe('given a newest result just under the protection line', () => {
    const builder = session()
      .user('go')
      .assistantToolCalls(['a', 'b', 'c', 'd', 'e'].map((id) => ({ name: 'bash', id })));
    for (const id of ['a', 'b', 'c', 'd']) builder.toolResult('bash', text(10000), { toolCallId: id });
    const entries = builder.toolResult('bash', text(39999), { toolCallId: 'e' }).entries;

    it('still protects the result that crosses the line', () => {
      const decision = pruneToolOutputs(entries, DEFAULT_PRUNING_SETTINGS, counter);
      expect(decision.kind === 'prune' && decision.results.map((result) => result.entryId)).toEqual([
        'e0005',
        'e0004',
        'e0003',
      ]);
    });
  });

  describe('given only small results', () => {
    const entries = session()
      .user('go')
      .assistantToolCalls([{ name: 'bash' }])
      .toolResult('bash', 'ok').entries;

    it('reports that there is nothing to prune', () => {
      expect(pruneToolOutputs(entries, DEFAULT_PRUNING_SETTINGS, counter)).toEqual({
        kind: 'none',
        reason: 'no_candidates',
        potentialSavings: 0,
      });
    });
  });

  describe('given large results that a compaction already took out of the context (reference defect 9)', () => {
    const builder = withResults(session(), ['bash', 'bash', 'bash']);
    const firstKeptEntryId = builder.nextId;
    const entries = withResults(builder, ['bash', 'bash', 'bash', 'bash', 'bash'])
      .compaction({ firstKeptEntryId, tokensBefore: 80000 })
      .user('more').entries;

    it('considers only the results still in the context, so the savings are real', () => {
      expect(pruneToolOutputs(entries, DEFAULT_PRUNING_SETTINGS, counter)).toEqual({
        kind: 'none',
        reason: 'below_minimum_savings',
        potentialSavings: SAVED_PER_RESULT,
      });
    });
  });
});
