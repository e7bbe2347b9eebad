import { session } from '@strata/testing';
import { sessionModelOf, withPrunedOutputs } from './session-views';

describe('session views', () => {
  const builder = session()
    .user('go')
    .assistantToolCalls([{ name: 'bash' }], { provider: 'anthropic', model: 'claude-x' })
    .toolResult('bash', 'a long output')
    .modelChange('openai/gpt-y');

  it('show a pruned tool result as its notice, keeping the original entry untouched', () => {
    const [, , result] = withPrunedOutputs(builder.entries, new Map([['e0003', { prunedAt: 7, tokens: 4 }]]));
    expect(result).toMatchObject({
      message: { content: [{ type: 'text', text: '[Output truncated - 4 tokens]' }], prunedAt: 7 },
    });
    expect(builder.entries[2]).toMatchObject({
      message: { content: [{ type: 'text', text: 'a long output' }] },
    });
  });

  it('name the model of the newest default-role model change or assistant answer', () => {
    expect(sessionModelOf(builder.entries)).toBe('openai/gpt-y');
    expect(sessionModelOf(builder.entries.slice(0, 3))).toBe('anthropic/claude-x');
    expect(sessionModelOf([])).toBeUndefined();
  });
});
