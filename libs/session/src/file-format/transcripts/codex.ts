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
import { thinkingLevels, type ThinkingLevel } from '../../entries/entries';
import type { JsonObject } from '../json-lines';
import { answerMessage, outputOf, textAndImages, texts } from './codex-content';
import { checkCodexLine, isAnswerItem, itemOf } from './codex-lines';
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

/** The lines of one model response, held until a line shows that it ended. */
interface OpenResponse {
  readonly records: TranscriptRecord[];
  readonly items: JsonObject[];
  /** Set by the turn's end (`task_complete`, `turn_aborted`): the next line closes it, whatever it is. */
  ended: boolean;
}

/** The `event_msg` types that end a turn: no item of its responses comes after them. */
const TURN_ENDS: ReadonlySet<unknown> = new Set(['task_complete', 'turn_aborted']);

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
    checkCodexLine(record);
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
    if (this.open?.ended === true) this.closeOpen(undefined);
    const value = record.value;
    const item = itemOf(value);
    const original = [{ line: record.line, text: record.text }];
    const itemType = stringField(item, 'type');
    if (item !== undefined && itemType !== undefined) {
      if (isAnswerItem(item, itemType)) {
        if (this.open !== undefined && this.open.records.length >= MAX_ANSWER_LINES)
          this.closeOpen(undefined);
        this.open ??= { records: [], items: [], ended: false };
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
      if (this.open !== undefined && TURN_ENDS.has(payload?.type)) this.open.ended = true;
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

  protected releaseEnded(): void {
    const open = this.open;
    if (open?.ended === true && this.timed([open.records[0]])) this.closeOpen(undefined);
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
    const [first] = open.records;
    if (first === undefined) return;
    const timestamp = this.timestampOf(first);
    const message = answerMessage(open.items, {
      provider: this.provider,
      model: this.model,
      usageInfo: objectField(objectField(usageRecord?.value, 'payload'), 'info'),
      time: timeOf(timestamp),
    });
    for (const block of message.content) {
      if (block.type === 'toolCall') this.toolNames.set(block.id, block.name);
    }
    const records = usageRecord === undefined ? open.records : [...open.records, usageRecord];
    this.append(
      { type: 'message', id: this.uniqueId(lineEntryId(first.line), first.line), timestamp, message },
      records.map((record) => ({ line: record.line, text: record.text })),
    );
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
