// Context-overflow detection (reference §9): the phrasings providers use when a prompt does not
// fit the model, plus the "silent" overflow where a provider accepts the prompt but reports more
// input tokens than the window holds. Shared by the summariser providers and the engine. The
// phrasings were collected from the providers' own error texts as agents and their users report
// them; the spec names one real message per phrasing.

/** Provider phrasings of "the prompt is larger than the context window". */
const overflowPatterns: readonly RegExp[] = [
  // Anthropic (also behind Bedrock and Vertex AI)
  /prompt is too long/i,
  /input length and `?max_tokens`? exceed context limit/i,
  /request_too_large/i, // the 413 error type
  /request exceeds the maximum size/i, // its message
  // OpenAI and Azure OpenAI (the Chat Completions wording is also vLLM's, OpenRouter's, DeepSeek's)
  /exceeds the context window/i,
  /input tokens exceed the configured limit/i,
  /maximum context length is \d+ tokens/i,
  /context[_ ]length[_ ]exceeded/i, // the error code, Groq's too
  // Google Gemini and Vertex AI
  /input token count.*exceeds the maximum/i,
  /input token count is \d+ but model only supports up to/i,
  // Amazon Bedrock
  /input is too long for requested model/i,
  // Mistral
  /too large for model with \d+ maximum context length/i,
  // Groq
  /reduce the length of the messages/i,
  // xAI
  /maximum prompt length is \d+/i,
  // Ollama
  /prompt too long; exceeded (?:max )?context length/i,
  /input length exceeds the context length/i,
  // llama.cpp server
  /exceeds the available context size/i,
  // vLLM
  /is longer than the maximum model length/i,
  /too long to fit into the model/i,
  // LM Studio
  /greater than the context length/i,
  /loaded with context length of only \d+ tokens/i,
  // Others: GitHub Copilot, MiniMax, Kimi, z.ai, generic wordings
  /exceeds the limit of \d+/i,
  /context window exceeds limit/i,
  /exceeded model token limit/i,
  /model_context_window_exceeded/i,
  /too many tokens/i,
  /token limit exceeded/i,
];

/** Cerebras answers an oversized prompt with a bare 400/413 and no body. */
const bodilessStatusPattern = /^4(?:00|13)\s*(?:status code)?\s*\(no body\)/i;

/**
 * Wordings of rate limits and throttling. Some of them also read like an overflow (Bedrock's
 * "Too many tokens, please wait", the "Request too large … on tokens per minute" of OpenAI and
 * Groq), but waiting, not compacting, is the answer to them; they win over the phrasings above.
 */
const rateLimitPatterns: readonly RegExp[] = [
  /rate.?limit/i,
  /too many requests/i,
  /throttl/i,
  /tokens per min/i,
];

/** True when an error text speaks of a rate limit or throttling. */
export function isRateLimitText(text: string): boolean {
  return rateLimitPatterns.some((pattern) => pattern.test(text));
}

/** True when an error text says the prompt did not fit the model's context window. */
export function isContextOverflowText(text: string): boolean {
  if (isRateLimitText(text)) return false;
  return bodilessStatusPattern.test(text.trim()) || overflowPatterns.some((pattern) => pattern.test(text));
}

/** The parts of an assistant message that overflow detection reads (a session `AssistantMessage` fits). */
export interface OverflowCheckedMessage {
  readonly stopReason: string;
  readonly errorMessage?: string | undefined;
  readonly usage?: { readonly input: number; readonly cacheRead?: number | undefined } | undefined;
}

/**
 * True when the message shows that the context overflowed: an error stop whose message matches a
 * known overflow phrasing, or (any stop reason) input plus cache-read tokens above `contextWindow`.
 */
export function isContextOverflow(message: OverflowCheckedMessage, contextWindow?: number): boolean {
  if (message.stopReason === 'error' && message.errorMessage !== undefined) {
    if (isContextOverflowText(message.errorMessage)) return true;
  }
  if (contextWindow === undefined || contextWindow <= 0 || message.usage === undefined) return false;
  return message.usage.input + (message.usage.cacheRead ?? 0) > contextWindow;
}
