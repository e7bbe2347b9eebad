// Codex's response items as pi's message content: the items of one model response folded into
// one assistant message (reasoning as thinking, text, function, custom-tool and local-shell
// calls), a call's output as a tool result (failed when it says so or exits non-zero), and the
// text and data-URL images of a message. Parts pi has no place for stay in the original lines.
import type { AssistantContent, ToolResultContent } from '../../entries/content';
import type { AssistantMessage, Usage } from '../../entries/messages';
import type { JsonObject } from '../json-lines';
import { isJsonObject } from '../json-lines';
import { numberField, objectField, stringField } from './transcript-lines';

/** The texts of a message's content (a string, or its text and refusal parts). */
export function texts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => {
    const text = isJsonObject(part) ? (stringField(part, 'text') ?? stringField(part, 'refusal')) : undefined;
    return text !== undefined ? [text] : [];
  });
}

/** Text and data-URL images of a message or an output; other parts stay in the line only. */
export function textAndImages(content: unknown): ToolResultContent {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const result: ToolResultContent = [];
  for (const part of content) {
    if (!isJsonObject(part)) continue;
    const text = stringField(part, 'text');
    if (text !== undefined) result.push({ type: 'text', text });
    const url = stringField(part, 'image_url');
    const match = url === undefined ? null : /^data:([^;,]+);base64,(.*)$/s.exec(url);
    if (match?.[1] !== undefined && match[2] !== undefined) {
      result.push({ type: 'image', mimeType: match[1], data: match[2] });
    }
  }
  return result;
}

/** An output's content and whether it reports a failure. */
export function outputOf(output: unknown): { content: ToolResultContent; isError: boolean } {
  if (isJsonObject(output)) {
    return { content: textAndImages(output.content), isError: output.success === false };
  }
  const content = textAndImages(output);
  if (typeof output !== 'string') return { content, isError: false };
  try {
    const parsed: unknown = JSON.parse(output);
    const exitCode = isJsonObject(parsed)
      ? numberField(objectField(parsed, 'metadata'), 'exit_code')
      : undefined;
    return { content, isError: exitCode !== undefined && exitCode !== 0 };
  } catch {
    return { content, isError: false };
  }
}

function argumentsOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) ? parsed : { arguments: text };
  } catch {
    return { arguments: text };
  }
}

/** The usage of the last request in a `token_count` event's info. */
function usageOf(info: JsonObject | undefined): Usage | undefined {
  const last = objectField(info, 'last_token_usage');
  if (last === undefined) return undefined;
  const input = numberField(last, 'input_tokens') ?? 0;
  const cached = Math.min(input, numberField(last, 'cached_input_tokens') ?? 0);
  const output = numberField(last, 'output_tokens') ?? 0;
  return {
    input: input - cached,
    output,
    cacheRead: cached,
    cacheWrite: 0,
    totalTokens: numberField(last, 'total_tokens') ?? input + output,
  };
}

function answerPart(item: JsonObject, content: AssistantContent): void {
  switch (item.type) {
    case 'reasoning': {
      const summary = texts(item.summary);
      const thinking = summary.length > 0 ? summary : texts(item.content);
      if (thinking.length > 0) content.push({ type: 'thinking', thinking: thinking.join('\n\n') });
      return;
    }
    case 'message':
      for (const text of texts(item.content)) content.push({ type: 'text', text });
      return;
    case 'function_call':
    case 'custom_tool_call': {
      const input = stringField(item, 'input');
      const args =
        item.type === 'function_call' ? argumentsOf(stringField(item, 'arguments')) : { input: input ?? '' };
      content.push({
        type: 'toolCall',
        id: stringField(item, 'call_id') ?? '',
        name: stringField(item, 'name') ?? '',
        arguments: args,
      });
      return;
    }
    case 'local_shell_call': {
      const id = stringField(item, 'call_id') ?? stringField(item, 'id');
      if (id === undefined) return;
      content.push({
        type: 'toolCall',
        id,
        name: 'local_shell',
        arguments: objectField(item, 'action') ?? {},
      });
      return;
    }
    default:
      return;
  }
}

/** The assistant message of one response's items, with the last usage of the `token_count` info that ended it. */
export function answerMessage(
  items: readonly JsonObject[],
  answer: {
    readonly provider: string;
    readonly model: string | undefined;
    readonly usageInfo: JsonObject | undefined;
    readonly time: number;
  },
): AssistantMessage {
  const content: AssistantContent = [];
  for (const item of items) answerPart(item, content);
  const usage = usageOf(answer.usageInfo);
  return {
    role: 'assistant',
    content,
    api: 'openai-responses',
    provider: answer.provider,
    model: answer.model ?? 'unknown',
    ...(usage !== undefined ? { usage } : {}),
    stopReason: content.some((block) => block.type === 'toolCall') ? 'toolUse' : 'stop',
    timestamp: answer.time,
  };
}
