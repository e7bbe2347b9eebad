// Context-overflow detection (reference §9): the phrasings providers use when a prompt does not
// fit the model, plus the "silent" overflow where a provider accepts the prompt but reports more
// input tokens than the window holds. Shared by the summariser providers and the engine.

/** Provider phrasings of "the prompt is larger than the context window". */
const overflowPatterns: readonly RegExp[] = [
  /prompt is too long/i, // Anthropic
  /input is too long for requested model/i, // Amazon Bedrock
  /exceeds the context window/i, // OpenAI
  /input token count.*exceeds the maximum/i, // Google Gemini
  /maximum prompt length is \d+/i, // xAI
  /reduce the length of the messages/i, // Groq
  /maximum context length is \d+ tokens/i, // OpenRouter, OpenAI-compatible servers
  /exceeds the limit of \d+/i, // GitHub Copilot
  /exceeds the available context size/i, // llama.cpp server
  /greater than the context length/i, // LM Studio
  /context window exceeds limit/i, // MiniMax
  /exceeded model token limit/i, // Kimi
  /context[_ ]length[_ ]exceeded/i,
  /too many tokens/i,
  /token limit exceeded/i,
  /request[_ ]too[_ ]large/i, // Anthropic 413 error type
];

/** Cerebras and Mistral answer an oversized prompt with a bare 400/413 and no body. */
const bodilessStatusPattern = /^4(?:00|13)\s*(?:status code)?\s*\(no body\)/i;

/** True when an error text says the prompt did not fit the model's context window. */
export function isContextOverflowText(text: string): boolean {
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
