import { isContextOverflow, isContextOverflowText, isRateLimitText } from './context-overflow';

// One real message per phrasing, as the provider returns it (numbers and ids as reported).
const overflowMessages: readonly (readonly [string, string])[] = [
  ['Anthropic', 'prompt is too long: 213462 tokens > 200000 maximum'],
  [
    'Anthropic',
    '400 {"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 197733 + 21333 > 200000, decrease input length or `max_tokens` and try again"}}',
  ],
  [
    'Anthropic (as some clients print it)',
    'input length and max_tokens exceed context limit: 90402 + 116650 > 204648, decrease input length or max_tokens and try again',
  ],
  [
    'Anthropic (413)',
    '413 {"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
  ],
  [
    'OpenAI (Responses)',
    'Your input exceeds the context window of this model. Please adjust your input and try again.',
  ],
  [
    'OpenAI (Chat Completions)',
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages.",
  ],
  [
    'OpenAI (legacy completions)',
    "This model's maximum context length is 4097 tokens, however you requested 4226 tokens (3975 in your prompt; 256 for the completion). Please reduce your prompt; or completion length.",
  ],
  [
    'OpenAI (gpt-5)',
    '400 Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 289650 tokens. Please reduce the length of the messages.',
  ],
  [
    'Azure OpenAI',
    "Error code: 400 - {'error': {'message': \"This model's maximum context length is 8192 tokens. However, your messages resulted in 8202 tokens. Please reduce the length of the messages.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}",
  ],
  ['Azure OpenAI (error code alone)', '{"error":{"code":"context_length_exceeded","message":"too long"}}'],
  [
    'Google Gemini',
    'The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).',
  ],
  [
    'Google Vertex AI',
    '400 Unable to submit request because the input token count is 3601938 but model only supports up to 1000000. Reduce the input token count and try again.',
  ],
  ['Amazon Bedrock', 'ValidationException: Input is too long for requested model.'],
  [
    'Amazon Bedrock (Claude)',
    'ValidationException: The model returned the following errors: prompt is too long: 227255 tokens > 200000 maximum',
  ],
  [
    'Mistral',
    'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
  ],
  [
    'OpenRouter',
    'This endpoint\'s maximum context length is 131072 tokens. However, you requested about 141607 tokens (10535 of text input, 131072 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
  ],
  ['Groq', 'Please reduce the length of the messages or completion.'],
  ['xAI', "This model's maximum prompt length is 131072 but the request contains 136973 tokens."],
  [
    'Ollama',
    'Ollama API error 400: {"StatusCode":400,"Status":"400 Bad Request","error":"prompt too long; exceeded max context length by 4 tokens"}',
  ],
  ['Ollama (embeddings)', '400 the input length exceeds the context length'],
  ['llama.cpp server', 'the request exceeds the available context size, try increasing it'],
  [
    'llama.cpp server (with counts)',
    '{"error":{"code":400,"message":"request (5584 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error"}}',
  ],
  [
    'vLLM',
    "This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.",
  ],
  [
    'vLLM (newer)',
    "This model's maximum context length is 128000 tokens. However, you requested 65535 output tokens and your prompt contains at least 62466 input tokens, for a total of at least 128001 tokens.",
  ],
  ['vLLM (engine)', 'The decoder prompt (length 17772) is longer than the maximum model length of 16384.'],
  [
    'vLLM (multimodal)',
    'The prompt (total length 25938) is too long to fit into the model (context length 4096).',
  ],
  [
    'LM Studio',
    'The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input',
  ],
  [
    'LM Studio (keep)',
    'Trying to keep the first 6269 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.',
  ],
  ['GitHub Copilot', 'prompt token count of 250000 exceeds the limit of 128000'],
  ['MiniMax', 'invalid params, context window exceeds limit'],
  ['Kimi', 'Your request exceeded model token limit: 262144 (requested: 300000)'],
  ['z.ai', 'model_context_window_exceeded'],
  ['generic', 'too many tokens in request'],
  ['generic', 'token limit exceeded'],
  ['Cerebras', '400 status code (no body)'],
  ['Cerebras', '413 (no body)'],
];

// Failures that compaction does not cure: rate limits (some of them worded like an overflow),
// authentication, overload and other client errors.
const otherFailures: readonly (readonly [string, string])[] = [
  [
    'Anthropic rate limit',
    '429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 30,000 input tokens per minute."}}',
  ],
  ['Anthropic overload', '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'],
  [
    'Anthropic authentication',
    '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
  ],
  [
    'OpenAI tokens per minute',
    'Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 342389. The input or output tokens must be reduced in order to run successfully.',
  ],
  [
    'OpenAI rate limit',
    'Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 25000, Requested 10000.',
  ],
  ['OpenAI quota', 'You exceeded your current quota, please check your plan and billing details.'],
  [
    'OpenAI authentication',
    'Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.',
  ],
  [
    'OpenAI output limit',
    'max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.',
  ],
  [
    'Azure OpenAI rate limit',
    'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-02-01 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 60 seconds.',
  ],
  ['Google Gemini quota', '429 Resource has been exhausted (e.g. check quota).'],
  ['Google Gemini authentication', 'API key not valid. Please pass a valid API key.'],
  ['Amazon Bedrock throttling', 'ThrottlingException: Too many tokens, please wait before trying again.'],
  [
    'Amazon Bedrock throttling (as pi prints it)',
    'Throttling error: Too many tokens, please wait before trying again.',
  ],
  ['Amazon Bedrock authentication', 'The security token included in the request is invalid.'],
  ['Mistral rate limit', 'Requests rate limit exceeded'],
  ['OpenRouter rate limit', 'Rate limit exceeded: free-models-per-day.'],
  [
    'Groq tokens per minute (413)',
    '413 Request too large for model `llama-3.3-70b-versatile` in organization `org_01` service tier `on_demand` on tokens per minute (TPM): Limit 12000, Requested 14137, please reduce your message size and try again.',
  ],
  ['generic', 'rate limit exceeded'],
  ['generic', '500 internal server error'],
  ['generic', '400 status code: bad json'],
];

describe('overflow phrasings', () => {
  it.each(overflowMessages)('recognises %s: %j', (_provider, text) => {
    expect(isContextOverflowText(text)).toBe(true);
    expect(isContextOverflow({ stopReason: 'error', errorMessage: text })).toBe(true);
  });

  it.each(otherFailures)('does not take %s for an overflow: %j', (_provider, text) => {
    expect(isContextOverflowText(text)).toBe(false);
    expect(isContextOverflow({ stopReason: 'error', errorMessage: text })).toBe(false);
  });

  it('reads rate-limit wording as such', () => {
    expect(isRateLimitText('ThrottlingException: Too many tokens, please wait before trying again.')).toBe(
      true,
    );
    expect(isRateLimitText('prompt is too long: 213462 tokens > 200000 maximum')).toBe(false);
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
