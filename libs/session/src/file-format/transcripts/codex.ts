// Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) as session entries. Lines
// are `{timestamp, type, payload}`; older rollouts have no envelope (a first line with the
// session's `id` and `timestamp`, then the response items themselves, and `record_type` lines).
// The conversation is a chain, one entry after the other:
// - `session_meta` names the session (id, time, cwd, model provider);
// - `response_item`s: user messages become user messages, developer and system messages custom
//   messages (`codex/developer`); the items of one model response (reasoning, assistant
//   message, function, custom-tool and local-shell calls) become one assistant message, held
//   until the response ended (its outputs, a `token_count` event, whose last usage it takes, or
//   the next prompt); `function_call_output` and `custom_tool_call_output` become tool results
//   paired by `call_id`;
// - `turn_context` records the model and reasoning effort: a change becomes a `model_change`
//   (and a `thinking_level_change`), otherwise a custom entry;
// - `compacted` becomes a compaction that keeps nothing before it (the replacement history is
//   kept in the line only);
// - `event_msg` lines (which repeat the items for the UI), unknown lines and blank lines become
//   `custom` entries, invisible to the context.
// Every entry keeps the lines it was made from, so the file can be written back byte for byte.
import { z } from 'zod';
import type { AssistantContent, ToolResultContent } from '../../entries/content';
import { thinkingLevels, type ThinkingLevel } from '../../entries/entries';
import type { AssistantMessage, Usage } from '../../entries/messages';
import type { JsonObject } from '../json-lines';
import { isJsonObject } from '../json-lines';
import { SessionFileError } from '../session-file-error';
import {
  lineEntryId,
  MAX_ANSWER_LINES,
  TranscriptConverterBase,
  type UnnamedEntry,
  type UnplacedEntry,
  type HeaderCandidate,
  type TranscriptConverter,
  type TranscriptConverterOptions,
} from './transcript-converter';
import {
  lineTypeName,
  numberField,
  objectField,
  stringField,
  timeOf,
  type OriginalLine,
  type TranscriptRecord,
} from './transcript-lines';

const ENVELOPE_TYPES = new Set(['session_meta', 'response_item', 'turn_context', 'event_msg', 'compacted']);
const RESPONSE_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
]);
/** Items the model produces in a response: held together as one answer. */
const ANSWER_ITEMS = new Set([
  'reasoning',
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
]);

const itemSchemas: Readonly<Record<string, z.ZodType>> = {
  message: z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(z.looseObject({}))]) }),
  function_call: z.looseObject({ name: z.string(), call_id: z.string(), arguments: z.string().optional() }),
  custom_tool_call: z.looseObject({ name: z.string(), call_id: z.string() }),
  function_call_output: z.looseObject({ call_id: z.string() }),
  custom_tool_call_output: z.looseObject({ call_id: z.string() }),
};

interface OpenResponse {
  readonly records: TranscriptRecord[];
  readonly items: JsonObject[];
}

/** The response item a line holds (the payload, or the line itself in an old rollout). */
function itemOf(value: JsonObject | undefined): JsonObject | undefined {
  if (value === undefined) return undefined;
  if (value.type === 'response_item') return objectField(value, 'payload');
  return typeof value.type === 'string' &&
    RESPONSE_ITEM_TYPES.has(value.type) &&
    !Object.hasOwn(value, 'payload')
    ? value
    : undefined;
}

function texts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => {
    const text = isJsonObject(part) ? (stringField(part, 'text') ?? stringField(part, 'refusal')) : undefined;
    return text !== undefined ? [text] : [];
  });
}

/** Text and data-URL images of a message or an output; other parts stay in the line only. */
function textAndImages(content: unknown): ToolResultContent {
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
function outputOf(output: unknown): { content: ToolResultContent; isError: boolean } {
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

function isThinkingLevel(value: string | undefined): value is ThinkingLevel {
  return (thinkingLevels as readonly (string | undefined)[]).includes(value);
}

class CodexConverter extends TranscriptConverterBase {
  readonly format = 'codex' as const;
  private leaf: string | null = null;
  private provider = 'openai';
  private model: string | undefined;
  private effort: string | undefined;
  private contextTokens = 0;
  private readonly toolNames = new Map<string, string>();
  private open: OpenResponse | undefined;

  protected checkRecord(record: TranscriptRecord): void {
    const value = record.value;
    if (value === undefined) return;
    const fail = (reason: string): never => {
      throw new SessionFileError({ line: record.line, code: 'schema-violation', reason });
    };
    if (typeof value.type === 'string' && ENVELOPE_TYPES.has(value.type) && !isJsonObject(value.payload)) {
      fail(`a Codex ${value.type} line needs a payload object`);
    }
    const item = itemOf(value);
    const schema = item === undefined ? undefined : itemSchemas[String(item.type)];
    const checked = schema?.safeParse(item);
    if (checked !== undefined && !checked.success) {
      const [issue] = checked.error.issues;
      const at = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
      fail(`a Codex ${String(item?.type)} item: ${at}: ${issue?.message ?? 'invalid'}`);
    }
  }

  protected headerFrom(record: TranscriptRecord): HeaderCandidate | undefined {
    const value = record.value;
    const meta =
      value?.type === 'session_meta'
        ? objectField(value, 'payload')
        : value !== undefined && value.type === undefined && typeof value.id === 'string'
          ? value
          : undefined;
    const id = stringField(meta, 'id');
    if (meta === undefined || id === undefined || id === '') return undefined;
    this.provider = stringField(meta, 'model_provider') ?? this.provider;
    return {
      id,
      timestamp: stringField(meta, 'timestamp') ?? this.timestampOf(record),
      cwd: stringField(meta, 'cwd') ?? '',
    };
  }

  protected mapRecord(record: TranscriptRecord): void {
    const value = record.value;
    const item = itemOf(value);
    const original = [{ line: record.line, text: record.text }];
    const itemType = stringField(item, 'type');
    if (item !== undefined && itemType !== undefined) {
      const answerPart =
        ANSWER_ITEMS.has(itemType) || (itemType === 'message' && stringField(item, 'role') === 'assistant');
      if (answerPart) {
        if (this.open !== undefined && this.open.records.length >= MAX_ANSWER_LINES)
          this.closeOpen(undefined);
        this.open ??= { records: [], items: [] };
        this.open.records.push(record);
        this.open.items.push(item);
        return;
      }
      this.closeOpen(undefined);
      this.mapItem(record, item, itemType, original);
      return;
    }
    const payload = objectField(value, 'payload');
    if (value?.type === 'event_msg' && payload?.type === 'token_count') {
      const info = objectField(payload, 'info');
      const input = numberField(objectField(info, 'last_token_usage'), 'input_tokens');
      if (input !== undefined) this.contextTokens = input;
      if (this.open !== undefined && info !== undefined) {
        this.closeOpen(record);
        return;
      }
    }
    if (value?.type === 'event_msg') {
      const eventType = lineTypeName(payload?.type);
      this.emitCustom(record, 'codex/event_msg', { type: eventType }, original);
      return;
    }
    this.closeOpen(undefined);
    if (value?.type === 'turn_context' && payload !== undefined)
      this.mapTurnContext(record, payload, original);
    else if (value?.type === 'compacted' && payload !== undefined)
      this.mapCompacted(record, payload, original);
    else if (value === undefined) this.emitCustom(record, 'codex/blank', undefined, original);
    else {
      const type = value.type ?? (Object.hasOwn(value, 'record_type') ? value.record_type : 'session_meta');
      this.emitCustom(record, `codex/${lineTypeName(type)}`, undefined, original);
    }
  }

  protected flush(): void {
    this.closeOpen(undefined);
  }

  private append(entry: UnplacedEntry, original: readonly OriginalLine[]): void {
    this.emit({ ...entry, parentId: this.leaf }, original);
    this.leaf = entry.id;
  }

  private emitCustom(
    record: TranscriptRecord,
    customType: string,
    data: JsonObject | undefined,
    original: readonly OriginalLine[],
  ): void {
    this.append(
      {
        type: 'custom',
        id: this.uniqueId(lineEntryId(record.line), record.line),
        timestamp: this.timestampOf(record),
        customType,
        ...(data !== undefined ? { data } : {}),
      },
      original,
    );
  }

  /** Emits the held answer; `usageRecord` is the token_count line that ended it, if one did. */
  private closeOpen(usageRecord: TranscriptRecord | undefined): void {
    const open = this.open;
    if (open === undefined) return;
    this.open = undefined;
    const content: AssistantContent = [];
    for (const item of open.items) this.answerPart(item, content);
    const [first] = open.records;
    if (first === undefined) return;
    const info = objectField(objectField(usageRecord?.value, 'payload'), 'info');
    const usage = usageOf(info);
    const timestamp = this.timestampOf(first);
    const message: AssistantMessage = {
      role: 'assistant',
      content,
      api: 'openai-responses',
      provider: this.provider,
      model: this.model ?? 'unknown',
      ...(usage !== undefined ? { usage } : {}),
      stopReason: content.some((block) => block.type === 'toolCall') ? 'toolUse' : 'stop',
      timestamp: timeOf(timestamp),
    };
    const records = usageRecord === undefined ? open.records : [...open.records, usageRecord];
    this.append(
      { type: 'message', id: this.uniqueId(lineEntryId(first.line), first.line), timestamp, message },
      records.map((record) => ({ line: record.line, text: record.text })),
    );
  }

  private answerPart(item: JsonObject, content: AssistantContent): void {
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
        const id = stringField(item, 'call_id') ?? '';
        const name = stringField(item, 'name') ?? '';
        this.toolNames.set(id, name);
        const input = stringField(item, 'input');
        const args =
          item.type === 'function_call'
            ? argumentsOf(stringField(item, 'arguments'))
            : { input: input ?? '' };
        content.push({ type: 'toolCall', id, name, arguments: args });
        return;
      }
      case 'local_shell_call': {
        const id = stringField(item, 'call_id') ?? stringField(item, 'id');
        if (id === undefined) return;
        this.toolNames.set(id, 'local_shell');
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

  private mapItem(
    record: TranscriptRecord,
    item: JsonObject,
    itemType: string,
    original: readonly OriginalLine[],
  ) {
    const timestamp = this.timestampOf(record);
    const id = this.uniqueId(lineEntryId(record.line), record.line);
    if (itemType === 'function_call_output' || itemType === 'custom_tool_call_output') {
      const callId = stringField(item, 'call_id') ?? '';
      const { content, isError } = outputOf(item.output);
      this.append(
        {
          type: 'message',
          id,
          timestamp,
          message: {
            role: 'toolResult',
            toolCallId: callId,
            toolName: this.toolNames.get(callId) ?? 'unknown',
            content,
            isError,
            timestamp: timeOf(timestamp),
          },
        },
        original,
      );
      return;
    }
    const role = stringField(item, 'role');
    if (itemType === 'message' && role === 'user') {
      const content = textAndImages(item.content);
      this.append(
        { type: 'message', id, timestamp, message: { role: 'user', content, timestamp: timeOf(timestamp) } },
        original,
      );
      return;
    }
    if (itemType === 'message') {
      this.append(
        {
          type: 'custom_message',
          id,
          timestamp,
          customType: `codex/${lineTypeName(role)}`,
          content: texts(item.content).join('\n'),
          display: false,
        },
        original,
      );
      return;
    }
    this.append({ type: 'custom', id, timestamp, customType: `codex/${lineTypeName(itemType)}` }, original);
  }

  private mapTurnContext(
    record: TranscriptRecord,
    payload: JsonObject,
    original: readonly OriginalLine[],
  ): void {
    const timestamp = this.timestampOf(record);
    const model = stringField(payload, 'model');
    const effort = stringField(payload, 'effort');
    const changes: UnnamedEntry[] = [];
    if (model !== undefined && model !== this.model) {
      changes.push({ type: 'model_change', timestamp, provider: this.provider, modelId: model });
      this.model = model;
    }
    if (isThinkingLevel(effort) && effort !== this.effort) {
      changes.push({ type: 'thinking_level_change', timestamp, thinkingLevel: effort });
      this.effort = effort;
    }
    if (changes.length === 0) {
      this.emitCustom(record, 'codex/turn_context', undefined, original);
      return;
    }
    const lastId = this.uniqueId(lineEntryId(record.line), record.line);
    changes.forEach((change, index) => {
      const isLast = index === changes.length - 1;
      const id = isLast ? lastId : this.uniqueId(`${lastId}#${index + 1}`, record.line);
      this.append({ ...change, id }, isLast ? original : []);
    });
  }

  private mapCompacted(
    record: TranscriptRecord,
    payload: JsonObject,
    original: readonly OriginalLine[],
  ): void {
    const timestamp = this.timestampOf(record);
    const lastId = this.uniqueId(lineEntryId(record.line), record.line);
    const boundaryId = this.uniqueId(`${lastId}#1`, record.line);
    this.append({ type: 'custom', id: boundaryId, timestamp, customType: 'codex/compacted' }, []);
    this.append(
      {
        type: 'compaction',
        id: lastId,
        timestamp,
        summary: stringField(payload, 'message') ?? '',
        firstKeptEntryId: boundaryId,
        tokensBefore: Math.min(this.contextTokens, 1_000_000_000),
      },
      original,
    );
  }
}

/** A converter of a Codex CLI rollout (see the module comment for the mapping). */
export function createCodexConverter(options: TranscriptConverterOptions = {}): TranscriptConverter {
  return new CodexConverter(options);
}

/** Whether a line looks like a Codex rollout's (for detecting the format). */
export function looksLikeCodex(value: JsonObject): boolean {
  if (typeof value.type === 'string' && ENVELOPE_TYPES.has(value.type)) return isJsonObject(value.payload);
  if (value.record_type === 'state') return true;
  return itemOf(value) !== undefined && !Object.hasOwn(value, 'uuid');
}
