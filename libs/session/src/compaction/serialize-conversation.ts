// Provider-ready messages → the plain-text transcript a summariser reads (reference §5.1).
// Tool results are cut to 2,000 characters. With a token budget (defect 16 of §11.1 fixed), the
// oldest messages are left out behind a visible marker, so an overflowed session still fits.
import type { LlmMessage } from '../context/convert-to-llm';
import type { TokenCounter } from '../tokens/token-counter';

/** Characters of a tool result kept in a transcript. */
export const TOOL_RESULT_CHARACTER_LIMIT = 2000;

export interface SerializeConversationOptions {
  /** Upper bound on the transcript's tokens; without it the transcript is unbounded. */
  readonly maxTokens?: number;
  /** Counts the transcript's tokens; required with `maxTokens`. */
  readonly counter?: TokenCounter;
}

/** The notice that replaces the end of a text cut to `limit` characters. */
export function truncatedTextNotice(omittedCharacters: number): string {
  return `\n\n[... ${omittedCharacters} more characters truncated]`;
}

/** The marker that stands for messages left out at the start of a transcript. */
export function omittedMessagesMarker(count: number): string {
  return `[${count} earlier messages omitted]`;
}

function cutText(text: string, limit: number): string {
  return text.length > limit ? text.slice(0, limit) + truncatedTextNotice(text.length - limit) : text;
}

function joinedText(content: LlmMessage['content']): string {
  if (typeof content === 'string') return content;
  let text = '';
  for (const block of content) if (block.type === 'text') text += block.text;
  return text;
}

function formatArguments(argumentsByName: Readonly<Record<string, unknown>>): string {
  return Object.entries(argumentsByName)
    .map(([name, value]) => `${name}=${JSON.stringify(value) ?? 'undefined'}`)
    .join(', ');
}

/** The transcript blocks of one message (none when it carries no text). */
export function serializeMessage(message: LlmMessage): string[] {
  switch (message.role) {
    case 'user': {
      const text = joinedText(message.content);
      return text.length > 0 ? [`[User]: ${text}`] : [];
    }
    case 'assistant': {
      const thinking: string[] = [];
      const texts: string[] = [];
      const calls: string[] = [];
      for (const block of message.content) {
        if (block.type === 'thinking') thinking.push(block.thinking);
        else if (block.type === 'text') texts.push(block.text);
        else calls.push(`${block.name}(${formatArguments(block.arguments)})`);
      }
      const blocks: string[] = [];
      if (thinking.length > 0) blocks.push(`[Assistant thinking]: ${thinking.join('\n')}`);
      if (texts.length > 0) blocks.push(`[Assistant]: ${texts.join('\n')}`);
      if (calls.length > 0) blocks.push(`[Assistant tool calls]: ${calls.join('; ')}`);
      return blocks;
    }
    case 'toolResult': {
      const text = joinedText(message.content);
      return text.length > 0 ? [`[Tool result]: ${cutText(text, TOOL_RESULT_CHARACTER_LIMIT)}`] : [];
    }
    default: {
      const unreachable: never = message;
      throw new Error(`unknown message role ${JSON.stringify(unreachable)}`);
    }
  }
}

const BLOCK_SEPARATOR = '\n\n';

/**
 * The longest head of `text` (with a truncation notice) whose tokens stay within `maxTokens`;
 * undefined when not even one character fits.
 */
function fitText(text: string, maxTokens: number, counter: TokenCounter): string | undefined {
  const tokensOf = (candidate: string): number => counter.countPieces([candidate], 0);
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (tokensOf(cutText(text, middle)) <= maxTokens) low = middle;
    else high = middle - 1;
  }
  return low > 0 ? cutText(text, low) : undefined;
}

/**
 * The transcript of `messages`: each message as one or more labelled blocks, blocks separated
 * by a blank line. With `maxTokens`, the newest messages that fit are kept and the rest are
 * replaced by `[N earlier messages omitted]`; a newest message too large on its own is cut.
 */
export function serializeConversation(
  messages: readonly LlmMessage[],
  options: SerializeConversationOptions = {},
): string {
  const rendered = messages
    .map((message) => serializeMessage(message).join(BLOCK_SEPARATOR))
    .filter((text) => text.length > 0);
  const whole = rendered.join(BLOCK_SEPARATOR);
  const { maxTokens, counter } = options;
  if (maxTokens === undefined) return whole;
  if (counter === undefined) throw new Error('serializeConversation: a token budget needs a counter');
  const tokensOf = (text: string): number => counter.countPieces([text], 0);
  if (tokensOf(whole) <= maxTokens) return whole;

  const markerTokens = tokensOf(omittedMessagesMarker(rendered.length) + BLOCK_SEPARATOR);
  const available = Math.max(0, maxTokens - markerTokens);
  const kept: string[] = [];
  let keptTokens = 0;
  for (let index = rendered.length - 1; index >= 0; index -= 1) {
    const text = rendered[index] ?? '';
    const cost = tokensOf(text + BLOCK_SEPARATOR);
    if (keptTokens + cost > available) {
      const head = kept.length === 0 ? fitText(text, available, counter) : undefined;
      if (head !== undefined) kept.unshift(head);
      break;
    }
    kept.unshift(text);
    keptTokens += cost;
  }
  const omitted = rendered.length - kept.length;
  const parts = omitted > 0 ? [omittedMessagesMarker(omitted), ...kept] : kept;
  return parts.join(BLOCK_SEPARATOR);
}
