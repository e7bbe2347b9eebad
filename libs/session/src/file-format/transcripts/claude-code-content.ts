// Anthropic's message content as pi's: the lines of one answer folded into one assistant message
// (its blocks, model, usage and stop reason), `tool_result` blocks as tool-result messages, and
// the text and images of a prompt or a compact summary. Blocks pi has no place for stay in the
// original lines only.
import type { AssistantContent, ToolResultContent } from '../../entries/content';
import type { AssistantMessage, StopReason, ToolResultMessage, Usage } from '../../entries/messages';
import type { JsonObject } from '../json-lines';
import { blocksOf, messageOf } from './claude-code-lines';
import { numberField, objectField, stringField, timeOf, type TranscriptRecord } from './transcript-lines';

/** Anthropic's stop reasons as pi names them; an unknown or missing one is read from the content. */
const stopReasons: Readonly<Record<string, StopReason>> = {
  tool_use: 'toolUse',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  refusal: 'stop',
};

function stopReasonOf(reason: string | undefined, hasToolCall: boolean): StopReason {
  const known = reason !== undefined && Object.hasOwn(stopReasons, reason) ? stopReasons[reason] : undefined;
  return known ?? (hasToolCall ? 'toolUse' : 'stop');
}

function usageOf(usage: JsonObject | undefined): Usage | undefined {
  if (usage === undefined) return undefined;
  const input = numberField(usage, 'input_tokens') ?? 0;
  const output = numberField(usage, 'output_tokens') ?? 0;
  const cacheRead = numberField(usage, 'cache_read_input_tokens') ?? 0;
  const cacheWrite = numberField(usage, 'cache_creation_input_tokens') ?? 0;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite };
}

function imageOf(block: JsonObject): { type: 'image'; data: string; mimeType: string } | undefined {
  const source = objectField(block, 'source');
  const data = stringField(source, 'data');
  const mimeType = stringField(source, 'media_type');
  return stringField(source, 'type') === 'base64' && data !== undefined && mimeType !== undefined
    ? { type: 'image', data, mimeType }
    : undefined;
}

/** Text and images of user or tool-result content; other blocks stay in the original line only. */
export function textAndImages(blocks: readonly JsonObject[]): ToolResultContent {
  const content: ToolResultContent = [];
  for (const block of blocks) {
    const text = block.type === 'text' ? stringField(block, 'text') : undefined;
    if (text !== undefined) content.push({ type: 'text', text });
    const image = block.type === 'image' ? imageOf(block) : undefined;
    if (image !== undefined) content.push(image);
  }
  return content;
}

function answerBlock(block: JsonObject, content: AssistantContent): void {
  if (block.type === 'text') {
    content.push({ type: 'text', text: stringField(block, 'text') ?? '' });
  } else if (block.type === 'thinking') {
    const signature = stringField(block, 'signature');
    content.push({
      type: 'thinking',
      thinking: stringField(block, 'thinking') ?? '',
      ...(signature !== undefined ? { thinkingSignature: signature } : {}),
    });
  } else if (block.type === 'tool_use') {
    const input = objectField(block, 'input');
    content.push({
      type: 'toolCall',
      id: stringField(block, 'id') ?? '',
      name: stringField(block, 'name') ?? '',
      arguments: input ?? (block.input === undefined ? {} : { input: block.input }),
    });
  }
}

/**
 * The assistant message of an answer's lines (all non-blank, in order); `timestamp` is the
 * first line's. An answer whose last line is an API error is a failed message.
 */
export function answerMessage(records: readonly TranscriptRecord[], timestamp: string): AssistantMessage {
  const content: AssistantContent = [];
  let stopReason: string | undefined;
  let model: string | undefined;
  let usage: JsonObject | undefined;
  for (const record of records) {
    const message = messageOf(record.value ?? {});
    stopReason = stringField(message, 'stop_reason') ?? stopReason;
    model = stringField(message, 'model') ?? model;
    usage = objectField(message, 'usage') ?? usage;
    for (const block of blocksOf(record.value ?? {})) answerBlock(block, content);
  }
  const hasToolCall = content.some((block) => block.type === 'toolCall');
  const failed = records[records.length - 1]?.value?.isApiErrorMessage === true;
  const errorText = content.find((block) => block.type === 'text');
  const messageUsage = usageOf(usage);
  return {
    role: 'assistant',
    content,
    api: 'anthropic-messages',
    provider: 'anthropic',
    model: model ?? 'unknown',
    ...(messageUsage !== undefined ? { usage: messageUsage } : {}),
    stopReason: failed ? 'error' : stopReasonOf(stopReason, hasToolCall),
    ...(failed && errorText?.type === 'text' ? { errorMessage: errorText.text } : {}),
    timestamp: timeOf(timestamp),
  };
}

/** The tool-result messages of a user line's `tool_result` blocks, in order. */
export function toolResultMessages(
  blocks: readonly JsonObject[],
  toolNameOf: (callId: string) => string,
  time: number,
): ToolResultMessage[] {
  return blocks
    .filter((block) => block.type === 'tool_result')
    .map((block) => {
      const callId = stringField(block, 'tool_use_id') ?? '';
      const resultContent = block.content;
      return {
        role: 'toolResult',
        toolCallId: callId,
        toolName: toolNameOf(callId),
        content:
          typeof resultContent === 'string'
            ? [{ type: 'text', text: resultContent }]
            : textAndImages(Array.isArray(resultContent) ? (resultContent as JsonObject[]) : []),
        isError: block.is_error === true,
        timestamp: time,
      };
    });
}

/** The text of a compact summary line (its text blocks joined, when it is not a plain string). */
export function compactSummaryText(value: JsonObject): string {
  const content = messageOf(value)?.content;
  return typeof content === 'string'
    ? content
    : textAndImages(blocksOf(value))
        .map((block) => (block.type === 'text' ? block.text : ''))
        .join('\n');
}
