import { isContextOverflow, isContextOverflowText } from './context-overflow';

describe('overflow phrasings', () => {
  it.each([
    'prompt is too long: 213462 tokens > 200000 maximum',
    'input is too long for requested model',
    'Your input exceeds the context window of this model',
    'The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)',
    "This model's maximum prompt length is 131072 but the request contains 537812 tokens",
    'Please reduce the length of the messages or completion',
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 200000 tokens",
    'prompt token count of 250000 exceeds the limit of 128000',
    'the request exceeds the available context size, try increasing it',
    'tokens to keep from the initial prompt is greater than the context length',
    'invalid params, context window exceeds limit',
    'Your request exceeded model token limit: 262144',
    'context_length_exceeded',
    'too many tokens in request',
    'token limit exceeded',
    '413 {"type":"error","error":{"type":"request_too_large"}}',
    '400 status code (no body)',
    '413 (no body)',
  ])('recognises %j', (text) => {
    expect(isContextOverflowText(text)).toBe(true);
  });

  it.each([
    'rate limit exceeded',
    '500 internal server error',
    '401 invalid x-api-key',
    '400 status code: bad json',
  ])('does not flag %j', (text) => {
    expect(isContextOverflowText(text)).toBe(false);
  });
});

describe('an assistant message', () => {
  it('overflowed when it stopped with an error whose message is an overflow phrasing', () => {
    expect(
      isContextOverflow({ stopReason: 'error', errorMessage: 'prompt is too long: 300000 tokens' }),
    ).toBe(true);
  });

  it('did not overflow when an overflow phrasing comes with a non-error stop', () => {
    expect(isContextOverflow({ stopReason: 'stop', errorMessage: 'prompt is too long' })).toBe(false);
  });

  it('overflowed silently when input plus cache reads exceed the context window, whatever the stop reason', () => {
    const message = { stopReason: 'stop', usage: { input: 90_000, cacheRead: 40_000 } };
    expect(isContextOverflow(message, 128_000)).toBe(true);
    expect(isContextOverflow(message, 200_000)).toBe(false);
  });

  it('cannot overflow silently without a known context window', () => {
    expect(isContextOverflow({ stopReason: 'stop', usage: { input: 10_000_000 } })).toBe(false);
  });
});
