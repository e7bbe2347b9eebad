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
import type { JsonObject } from '../json-lines';
import { answerMessage, compactSummaryText, textAndImages, toolResultMessages } from './claude-code-content';
import { checkClaudeCodeLine, isSidechain, messageOf } from './claude-code-lines';
import { ClaudeCodeTurns } from './claude-code-turns';
import {
  lineEntryId,
  MAX_ANSWER_LINES,
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

/** The lines of one answer, held until a line shows that it ended. */
interface OpenAnswer {
  readonly messageId: string | undefined;
  readonly sidechain: boolean;
  readonly records: TranscriptRecord[];
  /** Lines that came while the answer was open, mapped after it. */
  readonly held: TranscriptRecord[];
  /** Whether its last line bears the message's stop reason (sent after every block), or the turn is over. */
  ended: boolean;
  /** Released before the next user or assistant line closed it: only `held` is still to map. */
  emitted: boolean;
}

/** `system` lines Claude Code writes once a turn is over: no block of its answer comes after them. */
const TURN_END_SUBTYPES: ReadonlySet<unknown> = new Set(['stop_hook_summary', 'turn_duration']);

function endsTurn(value: JsonObject): boolean {
  return value.type === 'system' && TURN_END_SUBTYPES.has(value.subtype);
}

/** Whether an assistant line carries its message's stop reason (the message ended with it). */
function endsMessage(value: JsonObject): boolean {
  const reason = messageOf(value)?.stop_reason;
  return typeof reason === 'string' && reason !== '';
}

class ClaudeCodeConverter extends TranscriptConverterBase {
  readonly format = 'claude-code' as const;
  private readonly turns = new ClaudeCodeTurns();
  /** Tool names by call id, for the results. */
  private readonly toolNames = new Map<string, string>();
  /** A compact boundary waiting for its summary: its entry and the tokens before it. */
  private boundary:
    { readonly entryId: string; readonly uuid: string; readonly tokensBefore: number } | undefined;
  private open: OpenAnswer | undefined;

  protected checkRecord(record: TranscriptRecord): void {
    checkClaudeCodeLine(record);
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
        this.open.ended = endsMessage(value);
        return;
      }
      if (value?.type !== 'user' && value?.type !== 'assistant') {
        this.open.held.push(record);
        if (value !== undefined && endsTurn(value)) this.open.ended = true;
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
        ended: endsMessage(value),
        emitted: false,
      };
      return;
    }
    this.mapClosed(record);
  }

  protected flush(): void {
    if (this.open !== undefined) this.closeOpen();
  }

  /**
   * An ended answer is released, and the lines held behind it that carry their own time (one
   * without takes the time of the latest line read when the answer closes, so it and the lines
   * after it wait for that). The answer stays open for the lines that follow, which are held
   * as they would have been.
   */
  protected releaseEnded(): void {
    const open = this.open;
    if (open?.ended !== true) return;
    if (!open.emitted) {
      if (!this.timed([open.records[0]])) return;
      open.emitted = true;
      this.emitAnswer(open.records);
    }
    const untimed = open.held.findIndex((record) => !this.timed([record]));
    const ready = open.held.splice(0, untimed < 0 ? open.held.length : untimed);
    for (const record of ready) this.mapClosed(record);
  }

  /** A line of the open answer's message; not after the line that bore its stop reason. */
  private continuesOpen(value: JsonObject): boolean {
    const open = this.open;
    if (open === undefined || open.messageId === undefined || open.ended) return false;
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
    if (!open.emitted) this.emitAnswer(open.records);
    for (const record of open.held) this.mapClosed(record);
  }

  private mapClosed(record: TranscriptRecord): void {
    const value = record.value;
    const original = [{ line: record.line, text: record.text }];
    if (value === undefined) {
      this.emitNotice(
        record,
        this.uniqueId(lineEntryId(record.line), record.line),
        this.turns.mainLeaf,
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
          this.turns.parentOf(value),
          'claude-code/system',
          value,
          original,
        );
        return;
      default:
        this.emitNotice(
          record,
          this.idOf(record),
          this.turns.parentOf(value),
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

  private emitAnswer(records: readonly TranscriptRecord[]): void {
    const [first] = records;
    const last = records[records.length - 1];
    if (first?.value === undefined || last?.value === undefined) return;
    const timestamp = this.timestampOf(first);
    const message = answerMessage(records, timestamp);
    for (const block of message.content) {
      if (block.type === 'toolCall') this.toolNames.set(block.id, block.name);
    }
    const id = this.idOf(first);
    const parentId = this.turns.parentOf(first.value);
    const originals = records.map((record) => ({ line: record.line, text: record.text }));
    this.emit({ type: 'message', id, parentId, timestamp, message }, originals);
    for (const record of records) this.turns.remember(stringField(record.value, 'uuid'), id);
    this.turns.placed(id, parentId, true, isSidechain(first.value));
  }

  private emitUser(record: TranscriptRecord, value: JsonObject, original: readonly OriginalLine[]): void {
    const timestamp = this.timestampOf(record);
    const time = timeOf(timestamp);
    if (value.isCompactSummary === true && this.boundary !== undefined) {
      this.emitCompaction(record, value, original);
      return;
    }
    const content = messageOf(value)?.content;
    const blocks = Array.isArray(content) ? (content as JsonObject[]) : [];
    const toolName = (callId: string) => this.toolNames.get(callId) ?? 'unknown';
    const drafts: { readonly entry: UnnamedEntry; readonly startsTurn: boolean }[] = toolResultMessages(
      blocks,
      toolName,
      time,
    ).map((message) => ({ startsTurn: false, entry: { type: 'message', timestamp, message } }));
    const prompt = typeof content === 'string' ? content : textAndImages(blocks);
    if (typeof prompt === 'string' || prompt.length > 0) {
      drafts.push({
        startsTurn: true,
        entry: { type: 'message', timestamp, message: { role: 'user', content: prompt, timestamp: time } },
      });
    }
    if (drafts.length === 0) {
      this.emitNotice(
        record,
        this.idOf(record),
        this.turns.parentOf(value),
        'claude-code/user',
        value,
        original,
      );
      return;
    }
    const lastId = this.idOf(record);
    let parentId = this.turns.parentOf(value);
    drafts.forEach((draft, index) => {
      const isLast = index === drafts.length - 1;
      const id = isLast ? lastId : this.uniqueId(`${lastId}#${index + 1}`, record.line);
      this.emit({ ...draft.entry, id, parentId }, isLast ? original : []);
      this.turns.placed(id, parentId, draft.startsTurn, isSidechain(value));
      parentId = id;
    });
    this.turns.remember(stringField(value, 'uuid'), lastId);
  }

  private emitBoundary(record: TranscriptRecord, value: JsonObject, original: readonly OriginalLine[]): void {
    const parentId = Object.hasOwn(value, 'logicalParentUuid')
      ? this.turns.parentOf(value, 'logicalParentUuid')
      : this.turns.parentOf(value);
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
    const id = this.idOf(record);
    const parentId = boundary.entryId;
    this.emit(
      {
        type: 'compaction',
        id,
        parentId,
        timestamp: this.timestampOf(record),
        summary: compactSummaryText(value),
        firstKeptEntryId: boundary.entryId,
        tokensBefore: Math.max(0, Math.min(boundary.tokensBefore, 1_000_000_000)),
      },
      original,
    );
    this.turns.remember(stringField(value, 'uuid'), id);
    this.turns.placed(id, parentId, true, isSidechain(value));
  }

  private emitTitle(record: TranscriptRecord, value: JsonObject, original: readonly OriginalLine[]): void {
    const name = stringField(value, 'summary');
    const id = this.idOf(record);
    const parentId = this.turns.mainLeaf;
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
    this.turns.placed(id, parentId, false, false);
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
    this.turns.remember(stringField(value, 'uuid'), id);
    this.turns.placed(id, parentId, false, value !== undefined && isSidechain(value));
  }
}

/** A converter of a Claude Code transcript (see the module comment for the mapping). */
export function createClaudeCodeConverter(options: TranscriptConverterOptions = {}): TranscriptConverter {
  return new ClaudeCodeConverter(options);
}
