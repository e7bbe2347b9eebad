import { parseSummaryPrompt, parseTranscript } from './summary-prompt';

describe('a summary prompt', () => {
  it('splits into transcript blocks, previous summary and additional context', () => {
    const prompt = [
      '<conversation>',
      '[User]: first line',
      'second line',
      '',
      '[Assistant thinking]: hmm',
      '',
      '[Assistant]: ok',
      '',
      '[Assistant tool calls]: read(path="a.ts")',
      '',
      '[Tool result]: contents',
      '</conversation>',
      '',
      '<previous-summary>',
      '## Goal',
      '- old',
      '</previous-summary>',
      '',
      '<additional-context>',
      '- branch: main',
      '- dirty: yes',
      '</additional-context>',
      '',
      'Summarise the conversation.',
    ].join('\n');
    const parts = parseSummaryPrompt(prompt);
    expect(parts.transcript).toEqual([
      { kind: 'user', text: 'first line\nsecond line' },
      { kind: 'thinking', text: 'hmm' },
      { kind: 'assistant', text: 'ok' },
      { kind: 'tool_calls', text: 'read(path="a.ts")' },
      { kind: 'tool_result', text: 'contents' },
    ]);
    expect(parts.previousSummary).toBe('## Goal\n- old');
    expect(parts.additionalContext).toEqual(['branch: main', 'dirty: yes']);
  });

  it('has no previous summary or context when the blocks are absent', () => {
    const parts = parseSummaryPrompt('<conversation>\n[User]: hi\n</conversation>\n\nSummarise.');
    expect(parts.previousSummary).toBeUndefined();
    expect(parts.additionalContext).toEqual([]);
    expect(parts.transcript).toEqual([{ kind: 'user', text: 'hi' }]);
  });

  it('yields an empty transcript for an empty conversation or none at all', () => {
    expect(parseSummaryPrompt('<conversation>\n\n</conversation>\n\nx').transcript).toEqual([]);
    expect(parseSummaryPrompt('just instructions').transcript).toEqual([]);
  });
});

describe('a transcript', () => {
  it('ignores an omission marker before the first block', () => {
    expect(parseTranscript('[12 earlier messages omitted]\n\n[User]: hi')).toEqual([
      { kind: 'user', text: 'hi' },
    ]);
  });
});
