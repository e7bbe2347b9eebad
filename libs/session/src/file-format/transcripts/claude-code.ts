// Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`) as session entries.
// Each `user` and `assistant` line has a `uuid` and a `parentUuid`; they become the tree:
// - the lines of one answer (Claude Code writes one content block per line, sharing
//   `message.id`) become one assistant message, with its model, usage and stop reason;
// - `tool_use` blocks become tool calls and `tool_result` blocks tool results, each result its
//   own message right after the call's answer; the results of parallel calls point at different
//   lines of the answer, so every entry that hangs from an answer or its results (results,
//   notices) is chained after the last of them: the answer's *turn*. Prompts and answers start
//   turns of their own, so a prompt that branches off (a rewind) still branches;
// - a `compact_boundary` system line and the summary after it (`isCompactSummary`) become a
//   compaction that keeps nothing before the boundary; `summary` lines (titles) session names;
// - sidechains (`isSidechain`, a subagent's conversation) start at `parentUuid: null`, so they
//   are trees of their own, apart from the main path;
// - every other line (system notices, file-history snapshots, queue operations, progress,
//   blank lines, unknown types) becomes a `custom` entry on the path, invisible to the context.
// Every entry keeps the lines it was made from, so the file can be written back byte for byte.
import { z } from 'zod';
import type { AssistantContent, ToolResultContent } from '../../entries/content';
import type { AssistantMessage, StopReason, Usage } from '../../entries/messages';
import type { JsonObject } from '../json-lines';
import { SessionFileError } from '../session-file-error';
import {
  lineEntryId,
  TranscriptConverterBase,
  type UnnamedEntry,
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

/** Lines of one answer held at most; a longer answer is split into several messages. */
export const MAX_ANSWER_LINES = 1000;

const contentBlockSchema = z.looseObject({ type: z.string() });
const messageLineSchema = z.looseObject({
  uuid: z.string(),
  parentUuid: z.string().nullable().optional(),
  message: z.looseObject({
    content: z.union([z.string(), z.array(contentBlockSchema)]),
  }),
});
const toolUseSchema = z.looseObject({ id: z.string(), name: z.string(), input: z.unknown() });
const toolResultSchema = z.looseObject({
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(contentBlockSchema)]).optional(),
});

/** The lines of one answer, held until a line shows that it ended. */
interface OpenAnswer {
  readonly messageId: string | undefined;
  readonly sidechain: boolean;
  readonly records: TranscriptRecord[];
  /** Lines that came while the answer was open, mapped after it. */
  readonly held: TranscriptRecord[];
}

function isSidechain(value: JsonObject): boolean {
  return value.isSidechain === true;
}

function messageOf(value: JsonObject): JsonObject | undefined {
  return objectField(value, 'message');
}

function blocksOf(value: JsonObject): JsonObject[] {
  const content = messageOf(value)?.content;
  return Array.isArray(content) ? (content as JsonObject[]) : [];
}

function describeIssue(error: z.ZodError): string {
  const [issue] = error.issues;
  const at = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
  return `${at}: ${issue?.message ?? 'invalid'}`;
}

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
function textAndImages(blocks: readonly JsonObject[]): ToolResultContent {
  const content: ToolResultContent = [];
  for (const block of blocks) {
    const text = block.type === 'text' ? stringField(block, 'text') : undefined;
    if (text !== undefined) content.push({ type: 'text', text });
    const image = block.type === 'image' ? imageOf(block) : undefined;
    if (image !== undefined) content.push(image);
  }
  return content;
}

class ClaudeCodeConverter extends TranscriptConverterBase {
  readonly format = 'claude-code' as const;
  /** The entry each line's uuid stands for. */
  private readonly entryOfUuid = new Map<string, string>();
  /** The turn of an entry, and the last entry of each turn. */
  private readonly turnOfEntry = new Map<string, number>();
  private readonly turnTails: string[] = [];
  /** Tool names by call id, for the results. */
  private readonly toolNames = new Map<string, string>();
  /** The last entry of the main conversation (not a sidechain): where lines without a parent go. */
  private mainLeaf: string | null = null;
  private lastEntry: string | null = null;
  /** A compact boundary waiting for its summary: its entry and the tokens before it. */
  private boundary:
    { readonly entryId: string; readonly uuid: string; readonly tokensBefore: number } | undefined;
  private open: OpenAnswer | undefined;

  protected checkRecord(record: TranscriptRecord): void {
    const value = record.value;
    if (value === undefined || (value.type !== 'user' && value.type !== 'assistant')) return;
    const line = messageLineSchema.safeParse(value);
    const fail = (reason: string): never => {
      throw new SessionFileError({ line: record.line, code: 'schema-violation', reason });
    };
    if (!line.success) return fail(`a Claude Code ${value.type} line: ${describeIssue(line.error)}`);
    for (const [index, block] of blocksOf(value).entries()) {
      const schema =
        block.type === 'tool_use'
          ? toolUseSchema
          : block.type === 'tool_result'
            ? toolResultSchema
            : undefined;
      const checked = schema?.safeParse(block);
      if (checked !== undefined && !checked.success) {
        fail(
          `a Claude Code ${String(block.type)} block: message.content.${index}.${describeIssue(checked.error)}`,
        );
      }
    }
  }

  protected headerFrom(record: TranscriptRecord): HeaderCandidate | undefined {
    const id = stringField(record.value, 'sessionId');
    if (id === undefined || id === '') return undefined;
    return {
      id,
      timestamp: this.timestampOf(record),
      cwd: stringField(record.value, 'cwd') ?? '',
    };
  }

  protected mapRecord(record: TranscriptRecord): void {
    const value = record.value;
    if (this.open !== undefined) {
      if (value?.type === 'assistant' && this.continuesOpen(value)) {
        this.open.records.push(record);
        return;
      }
      if (value?.type !== 'user' && value?.type !== 'assistant') {
        this.open.held.push(record);
        return;
      }
      this.closeOpen();
    }
    if (value?.type === 'assistant') {
      this.open = {
        messageId: stringField(messageOf(value), 'id'),
        sidechain: isSidechain(value),
        records: [record],
        held: [],
      };
      return;
    }
    this.mapClosed(record);
  }

  protected flush(): void {
    if (this.open !== undefined) this.closeOpen();
  }

  private continuesOpen(value: JsonObject): boolean {
    const open = this.open;
    if (open === undefined || open.messageId === undefined) return false;
    return (
      stringField(messageOf(value), 'id') === open.messageId &&
      isSidechain(value) === open.sidechain &&
      open.records.length < MAX_ANSWER_LINES
    );
  }

  private closeOpen(): void {
    const open = this.open;
    if (open === undefined) return;
    this.open = undefined;
    this.emitAnswer(open.records);
    for (const record of open.held) this.mapClosed(record);
  }

  private mapClosed(record: TranscriptRecord): void {
    const value = record.value;
    const original = [{ line: record.line, text: record.text }];
    if (value === undefined) {
      this.emitNotice(
        record,
        this.uniqueId(lineEntryId(record.line), record.line),
        this.mainLeaf,
        'claude-code/blank',
        undefined,
        original,
      );
      return;
    }
    switch (value.type) {
      case 'user':
        this.emitUser(record, value, original);
        return;
      case 'summary':
        this.emitTitle(record, value, original);
        return;
      case 'system':
        if (value.subtype === 'compact_boundary') {
          this.emitBoundary(record, value, original);
          return;
        }
        this.emitNotice(
          record,
          this.idOf(record),
          this.parentOf(record),
          'claude-code/system',
          value,
          original,
        );
        return;
      default:
        this.emitNotice(
          record,
          this.idOf(record),
          this.parentOf(record),
          `claude-code/${lineTypeName(value.type)}`,
          value,
          original,
        );
    }
  }

  /** The entry id of a line: its uuid when it has one (made unique), else one from its number. */
  private idOf(record: TranscriptRecord): string {
    const uuid = stringField(record.value, 'uuid');
    return this.uniqueId(uuid !== undefined && uuid !== '' ? uuid : lineEntryId(record.line), record.line);
  }

  /** Where an entry of this line attaches: its parent's turn's last entry, or the main path's. */
  private parentOf(record: TranscriptRecord, parentKey = 'parentUuid'): string | null {
    const value = record.value;
    if (value === undefined || !Object.hasOwn(value, parentKey)) {
      return isSidechain(value ?? {}) ? this.lastEntry : this.mainLeaf;
    }
    const parentUuid = stringField(value, parentKey);
    if (parentUuid === undefined) return null;
    const entryId = this.entryOfUuid.get(parentUuid);
    if (entryId === undefined) return null;
    const turn = this.turnOfEntry.get(entryId);
    return turn === undefined ? entryId : (this.turnTails[turn] ?? entryId);
  }

  /** Records an emitted entry: its place in the turns and the leaves. */
  private placed(entryId: string, parentId: string | null, startsTurn: boolean, sidechain: boolean): void {
    if (startsTurn) {
      this.turnOfEntry.set(entryId, this.turnTails.length);
      this.turnTails.push(entryId);
    } else if (parentId !== null) {
      const turn = this.turnOfEntry.get(parentId);
      if (turn !== undefined) {
        this.turnOfEntry.set(entryId, turn);
        this.turnTails[turn] = entryId;
      }
    }
    this.lastEntry = entryId;
    if (!sidechain || this.mainLeaf === null) this.mainLeaf = entryId;
  }

  private emitAnswer(records: readonly TranscriptRecord[]): void {
    const [first] = records;
    const last = records[records.length - 1];
    if (first?.value === undefined || last?.value === undefined) return;
    const content: AssistantContent = [];
    let stopReason: string | undefined;
    let model: string | undefined;
    let usage: JsonObject | undefined;
    for (const record of records) {
      const message = messageOf(record.value ?? {});
      stopReason = stringField(message, 'stop_reason') ?? stopReason;
      model = stringField(message, 'model') ?? model;
      usage = objectField(message, 'usage') ?? usage;
      for (const block of blocksOf(record.value ?? {})) this.answerBlock(block, content);
    }
    const timestamp = this.timestampOf(first);
    const hasToolCall = content.some((block) => block.type === 'toolCall');
    const failed = last.value.isApiErrorMessage === true;
    const errorText = content.find((block) => block.type === 'text');
    const messageUsage = usageOf(usage);
    const message: AssistantMessage = {
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
    const id = this.idOf(first);
    const parentId = this.parentOf(first);
    const originals = records.map((record) => ({ line: record.line, text: record.text }));
    this.emit({ type: 'message', id, parentId, timestamp, message }, originals);
    for (const record of records) {
      const uuid = stringField(record.value, 'uuid');
      if (uuid !== undefined) this.entryOfUuid.set(uuid, id);
    }
    this.placed(id, parentId, true, isSidechain(first.value));
  }

  private answerBlock(block: JsonObject, content: AssistantContent): void {
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
      const id = stringField(block, 'id') ?? '';
      const name = stringField(block, 'name') ?? '';
      const input = objectField(block, 'input');
      this.toolNames.set(id, name);
      content.push({
        type: 'toolCall',
        id,
        name,
        arguments: input ?? (block.input === undefined ? {} : { input: block.input }),
      });
    }
  }

  private emitUser(record: TranscriptRecord, value: JsonObject, original: readonly OriginalLine[]): void {
    const timestamp = this.timestampOf(record);
    const time = timeOf(timestamp);
    const sidechain = isSidechain(value);
    if (value.isCompactSummary === true && this.boundary !== undefined) {
      this.emitCompaction(record, value, original);
      return;
    }
    const content = messageOf(value)?.content;
    const blocks = Array.isArray(content) ? (content as JsonObject[]) : [];
    const drafts: { readonly entry: UnnamedEntry; readonly startsTurn: boolean }[] = [];
    for (const block of blocks.filter((candidate) => candidate.type === 'tool_result')) {
      const callId = stringField(block, 'tool_use_id') ?? '';
      const resultContent = block.content;
      drafts.push({
        startsTurn: false,
        entry: {
          type: 'message',
          timestamp,
          message: {
            role: 'toolResult',
            toolCallId: callId,
            toolName: this.toolNames.get(callId) ?? 'unknown',
            content:
              typeof resultContent === 'string'
                ? [{ type: 'text', text: resultContent }]
                : textAndImages(Array.isArray(resultContent) ? (resultContent as JsonObject[]) : []),
            isError: block.is_error === true,
            timestamp: time,
          },
        },
      });
    }
    const prompt = typeof content === 'string' ? content : textAndImages(blocks);
    if (typeof prompt === 'string' || prompt.length > 0) {
      drafts.push({
        startsTurn: true,
        entry: { type: 'message', timestamp, message: { role: 'user', content: prompt, timestamp: time } },
      });
    }
    if (drafts.length === 0) {
      this.emitNotice(record, this.idOf(record), this.parentOf(record), 'claude-code/user', value, original);
      return;
    }
    const lastId = this.idOf(record);
    let parentId = this.parentOf(record);
    drafts.forEach((draft, index) => {
      const isLast = index === drafts.length - 1;
      const id = isLast ? lastId : this.uniqueId(`${lastId}#${index + 1}`, record.line);
      this.emit({ ...draft.entry, id, parentId }, isLast ? original : []);
      this.placed(id, parentId, draft.startsTurn, sidechain);
      parentId = id;
    });
    const uuid = stringField(value, 'uuid');
    if (uuid !== undefined) this.entryOfUuid.set(uuid, lastId);
  }

  private emitBoundary(record: TranscriptRecord, value: JsonObject, original: readonly OriginalLine[]): void {
    const parentId = Object.hasOwn(value, 'logicalParentUuid')
      ? this.parentOf(record, 'logicalParentUuid')
      : this.parentOf(record);
    const id = this.idOf(record);
    this.emitNotice(record, id, parentId, 'claude-code/compact-boundary', value, original);
    const tokensBefore = numberField(objectField(value, 'compactMetadata'), 'preTokens') ?? 0;
    this.boundary = { entryId: id, uuid: stringField(value, 'uuid') ?? '', tokensBefore };
  }

  private emitCompaction(
    record: TranscriptRecord,
    value: JsonObject,
    original: readonly OriginalLine[],
  ): void {
    const boundary = this.boundary;
    if (boundary === undefined) return;
    this.boundary = undefined;
    const content = messageOf(value)?.content;
    const summary =
      typeof content === 'string'
        ? content
        : textAndImages(blocksOf(value))
            .map((block) => (block.type === 'text' ? block.text : ''))
            .join('\n');
    const id = this.idOf(record);
    const parentId = boundary.entryId;
    this.emit(
      {
        type: 'compaction',
        id,
        parentId,
        timestamp: this.timestampOf(record),
        summary,
        firstKeptEntryId: boundary.entryId,
        tokensBefore: Math.max(0, Math.min(boundary.tokensBefore, 1_000_000_000)),
      },
      original,
    );
    const uuid = stringField(value, 'uuid');
    if (uuid !== undefined) this.entryOfUuid.set(uuid, id);
    this.placed(id, parentId, true, isSidechain(value));
  }

  private emitTitle(record: TranscriptRecord, value: JsonObject, original: readonly OriginalLine[]): void {
    const name = stringField(value, 'summary');
    const id = this.idOf(record);
    const parentId = this.mainLeaf;
    this.emit(
      {
        type: 'session_info',
        id,
        parentId,
        timestamp: this.timestampOf(record),
        ...(name !== undefined ? { name } : {}),
      },
      original,
    );
    this.placed(id, parentId, false, false);
  }

  private emitNotice(
    record: TranscriptRecord,
    id: string,
    parentId: string | null,
    customType: string,
    value: JsonObject | undefined,
    original: readonly OriginalLine[],
  ): void {
    const subtype = stringField(value, 'subtype');
    this.emit(
      {
        type: 'custom',
        id,
        parentId,
        timestamp: this.timestampOf(record),
        customType,
        ...(subtype !== undefined ? { data: { subtype } } : {}),
      },
      original,
    );
    const uuid = stringField(value, 'uuid');
    if (uuid !== undefined) this.entryOfUuid.set(uuid, id);
    this.placed(id, parentId, false, value !== undefined && isSidechain(value));
  }
}

/** A converter of a Claude Code transcript (see the module comment for the mapping). */
export function createClaudeCodeConverter(options: TranscriptConverterOptions = {}): TranscriptConverter {
  return new ClaudeCodeConverter(options);
}

/** Whether a line looks like Claude Code's (for detecting the format). */
export function looksLikeClaudeCode(value: JsonObject): boolean {
  const type = value.type;
  if (type === 'user' || type === 'assistant' || type === 'system') {
    return typeof value.uuid === 'string' && Object.hasOwn(value, 'parentUuid');
  }
  if (type === 'summary') return typeof value.leafUuid === 'string';
  if (type === 'file-history-snapshot') return typeof value.messageId === 'string';
  return false;
}
