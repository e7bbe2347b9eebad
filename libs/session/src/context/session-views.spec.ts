import { session } from '@strata/testing';
import { charsPerFourCounter } from '../tokens/token-counter';
import { buildSessionContext } from './build-session-context';
import { estimateContextTokens, sessionModelOf, textsToCount, withPrunedOutputs } from './session-views';

describe('views of a session', () => {
  describe('given a tool call whose long output was pruned, then a model change', () => {
    const output = `a long output ${'x'.repeat(386)}`;
    const builder = session()
      .user('go')
      .assistantToolCalls([{ name: 'bash' }], { provider: 'anthropic', model: 'claude-x' })
      .toolResult('bash', output)
      .modelChange('openai/gpt-y');
    const pruned = new Map([['e0003', { prunedAt: 7, tokens: 4 }]]);

    it('when the path is shown to the model, then the result shows its notice and the entry is untouched', () => {
      const [, , result] = withPrunedOutputs(builder.entries, pruned);
      expect(result).toMatchObject({
        message: { content: [{ type: 'text', text: '[Output truncated - 4 tokens]' }], prunedAt: 7 },
      });
      expect(builder.entries[2]).toMatchObject({
        message: { content: [{ type: 'text', text: output }] },
      });
    });

    it('when nothing was pruned, then the entries are shown as they are', () => {
      expect(withPrunedOutputs(builder.entries, new Map())).toEqual(builder.entries);
    });

    it('when the model is asked for, then it is the newest default-role change or answer', () => {
      expect(sessionModelOf(builder.entries)).toBe('openai/gpt-y');
      expect(sessionModelOf(builder.entries.slice(0, 3))).toBe('anthropic/claude-x');
      expect(sessionModelOf([])).toBeUndefined();
    });

    it('when the context is estimated, then the pruned output counts as its notice only', () => {
      const leaf = builder.entries[2]!.id;
      const whole = estimateContextTokens(builder.entries, leaf, new Map(), charsPerFourCounter);
      const afterPruning = estimateContextTokens(builder.entries, leaf, pruned, charsPerFourCounter);
      expect(afterPruning).toBeLessThan(whole);
      // chars/4 of the result message: 400 characters before, the 29 of its notice after.
      expect(whole - afterPruning).toBe(100 - Math.ceil('[Output truncated - 4 tokens]'.length / 4));
    });
  });

  describe('given model changes in both shapes (issue 13, item 9)', () => {
    const builder = session()
      .user('go')
      .assistant('ok', { provider: 'anthropic', model: 'claude-x' })
      .piModelChange('openai', 'gpt-y')
      .modelChange('google/gemini-z', 'smol');

    it("follows pi's `provider` and `modelId`, and a role change leaves the default alone", () => {
      expect(sessionModelOf(builder.entries.slice(0, 3))).toBe('openai/gpt-y');
      expect(sessionModelOf(builder.entries)).toBe('openai/gpt-y');
      expect(buildSessionContext(builder.entries, undefined).models).toEqual({
        default: 'openai/gpt-y',
        smol: 'google/gemini-z',
      });
    });

    it('reads them as pi 0.73.1 does with ohMyPiFields off: no roles, no `model` string', () => {
      const context = buildSessionContext(builder.entries, undefined, { ohMyPiFields: false });
      expect(context.models).toEqual({});
      const piOnly = buildSessionContext(builder.entries.slice(0, 3), undefined, {
        ohMyPiFields: false,
      });
      expect(piOnly.models).toEqual({ default: 'openai/gpt-y' });
    });
  });

  describe('given a user message and a model change', () => {
    const entries = session().user('hello there').modelChange('openai/gpt-y').entries;

    it('when the texts to count are listed, then only the message contributes', () => {
      expect(textsToCount(entries)).toEqual(['hello there']);
    });
  });
});
