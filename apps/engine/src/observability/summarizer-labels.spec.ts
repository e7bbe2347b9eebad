import {
  BoundedLabelValues,
  MAX_VALUE_LENGTH,
  OTHER_VALUE,
  SummarizerLabeller,
  UNKNOWN_MODEL,
  candidateLabels,
} from './summarizer-labels';

describe('given the names the candidate list gives summarisers', () => {
  it.each([
    ['anthropic:claude-sonnet-4-5', { provider: 'anthropic', model: 'claude-sonnet-4-5' }],
    ['openai:gpt-5-mini', { provider: 'openai', model: 'gpt-5-mini' }],
    ['openai-compatible:qwen3:8b@127.0.0.1:11434', { provider: 'openai-compatible', model: 'qwen3:8b' }],
    ['remote:summaries.internal/v1/summarize', { provider: 'remote' }],
    ['remote-endpoint', { provider: 'remote-endpoint' }],
    ['offline-extractive', { provider: 'offline-extractive' }],
  ])('reads %s as its provider and the model it asks for', (name, labels) => {
    expect(candidateLabels(name)).toEqual(labels);
  });
});

describe('given a labeller', () => {
  it('labels a call by the model the provider reported, else the one asked for, else unknown', () => {
    const labeller = new SummarizerLabeller();
    expect(labeller.labelsOf('openai:gpt-5-mini', 'gpt-5-mini-2025-08-07')).toEqual({
      provider: 'openai',
      model: 'gpt-5-mini-2025-08-07',
    });
    expect(labeller.labelsOf('openai:gpt-5-mini')).toEqual({ provider: 'openai', model: 'gpt-5-mini' });
    expect(labeller.labelsOf('remote-endpoint')).toEqual({
      provider: 'remote-endpoint',
      model: UNKNOWN_MODEL,
    });
  });
});

describe('given a label bounded to three values', () => {
  it('keeps the first three values it sees and answers other for any later one', () => {
    const values = new BoundedLabelValues(3);
    expect(['a', 'b', 'a', 'c', 'd', 'b', 'e'].map((value) => values.valueOf(value))).toEqual([
      'a',
      'b',
      'a',
      'c',
      OTHER_VALUE,
      'b',
      OTHER_VALUE,
    ]);
  });

  it('cuts a long value to MAX_VALUE_LENGTH characters', () => {
    expect(new BoundedLabelValues(3).valueOf('m'.repeat(MAX_VALUE_LENGTH + 50))).toBe(
      'm'.repeat(MAX_VALUE_LENGTH),
    );
  });
});
