// A fluent builder for hand-written test sessions. Every append becomes a child of the current
// leaf and moves the leaf to it; ids (`e0001`, `e0002`…) and timestamps (a fixed base plus one
// second per entry) are deterministic, so expectations can name entries literally.
import type {
  AssistantContent,
  ImageContent,
  SessionEntry,
  SessionHeader,
  TextContent,
  ThinkingLevel,
  ToolCall,
  Usage,
  UserContent,
} from '@strata/session';
import {
  DEFAULT_BUILDER_BASE_TIME,
  type AssistantOptions,
  type BashOptions,
  type BranchSummaryOptions,
  type CompactionSpec,
  type CustomContentOptions,
  type SessionBuilderOptions,
  type ToolCallSpec,
  type ToolResultOptions,
} from './session-builder-options';

export * from './session-builder-options';

type EntryFields<TEntry> = TEntry extends SessionEntry
  ? Omit<TEntry, 'id' | 'parentId' | 'timestamp'>
  : never;

export class SessionBuilder {
  private readonly appended: SessionEntry[] = [];
  private leaf: string | null = null;
  private toolCallCounter = 0;
  private readonly unansweredToolCalls: { id: string; name: string }[] = [];
  private readonly baseMillis: number;
  private readonly sessionId: string;
  private readonly cwd: string;
  private readonly idPrefix: string;

  constructor(options: SessionBuilderOptions = {}) {
    this.baseMillis = Date.parse(options.baseTime ?? DEFAULT_BUILDER_BASE_TIME);
    if (!Number.isFinite(this.baseMillis)) throw new Error(`Invalid baseTime: ${options.baseTime}`);
    this.sessionId = options.sessionId ?? '0000000000000001';
    this.cwd = options.cwd ?? '/work/project';
    this.idPrefix = options.idPrefix ?? 'e';
  }

  /** Entries in append order. */
  get entries(): readonly SessionEntry[] {
    return this.appended;
  }

  /** The current leaf: the last appended entry, or where `branchFrom` moved it. */
  get leafId(): string | null {
    return this.leaf;
  }

  /** Id of the most recently appended entry (independent of `branchFrom`). */
  get lastId(): string {
    const last = this.appended[this.appended.length - 1];
    if (!last) throw new Error('SessionBuilder: no entry appended yet');
    return last.id;
  }

  get header(): SessionHeader {
    return {
      type: 'session',
      version: 3,
      id: this.sessionId,
      timestamp: new Date(this.baseMillis).toISOString(),
      cwd: this.cwd,
    };
  }

  /** The id the next appended entry will get. */
  get nextId(): string {
    return this.idAt(this.appended.length + 1);
  }

  /** Moves the leaf to an existing entry (or `null`: the next append starts a new root). */
  branchFrom(entryId: string | null): this {
    if (entryId !== null && !this.appended.some((entry) => entry.id === entryId)) {
      throw new Error(`SessionBuilder.branchFrom: unknown entry id ${entryId}`);
    }
    this.leaf = entryId;
    return this;
  }

  user(content: UserContent, options: { synthetic?: boolean } = {}): this {
    return this.append({
      type: 'message',
      message: {
        role: 'user',
        content,
        ...(options.synthetic !== undefined ? { synthetic: options.synthetic } : {}),
        timestamp: this.nextMillis(),
      },
    });
  }

  assistant(text: string, options: AssistantOptions = {}): this {
    return this.assistantContent([{ type: 'text', text }], options);
  }

  /** An assistant message with a thinking block, then an optional text block. */
  assistantThinking(thinking: string, text?: string, options: AssistantOptions = {}): this {
    const content: AssistantContent = [{ type: 'thinking', thinking }];
    if (text !== undefined) content.push({ type: 'text', text });
    return this.assistantContent(content, options);
  }

  /** An assistant message calling tools, with an optional leading text block. */
  assistantToolCalls(
    calls: readonly ToolCallSpec[],
    options: AssistantOptions & { text?: string } = {},
  ): this {
    const content: AssistantContent = [];
    if (options.text !== undefined) content.push({ type: 'text', text: options.text });
    for (const call of calls) content.push(this.toolCall(call));
    return this.assistantContent(content, options);
  }

  assistantContent(content: AssistantContent, options: AssistantOptions = {}): this {
    const hasToolCalls = content.some((block) => block.type === 'toolCall');
    for (const block of content) {
      if (block.type === 'toolCall') this.unansweredToolCalls.push({ id: block.id, name: block.name });
    }
    return this.append({
      type: 'message',
      message: {
        role: 'assistant',
        content,
        api: options.api ?? 'anthropic-messages',
        provider: options.provider ?? 'anthropic',
        model: options.model ?? 'claude-sonnet-4-5',
        usage: this.usageFor(content, options.usage),
        stopReason: options.stopReason ?? (hasToolCalls ? 'toolUse' : 'stop'),
        ...(options.errorMessage !== undefined ? { errorMessage: options.errorMessage } : {}),
        timestamp: this.nextMillis(),
      },
    });
  }

  toolResult(toolName: string, text: string, options: ToolResultOptions = {}): this {
    const toolCallId = options.toolCallId ?? this.claimToolCall(toolName);
    const content: (TextContent | ImageContent)[] = [{ type: 'text', text }];
    if (options.image) content.push(options.image);
    return this.append({
      type: 'message',
      message: {
        role: 'toolResult',
        toolCallId,
        toolName,
        content,
        ...(options.details !== undefined ? { details: options.details } : {}),
        isError: options.isError ?? false,
        timestamp: this.nextMillis(),
      },
    });
  }

  /**
   * `count` complete turns, numbered from `first` (default 0): the user asks to edit
   * `src/module-<n>.ts`, the assistant calls `edit`, the result is `resultLength` (default 400)
   * characters, and the assistant says it is done.
   */
  editTurns(count: number, options: { readonly first?: number; readonly resultLength?: number } = {}): this {
    const first = options.first ?? 0;
    for (let turn = first; turn < first + count; turn += 1) {
      this.user(`Step ${turn}: edit src/module-${turn}.ts`)
        .assistantToolCalls([{ name: 'edit', arguments: { path: `src/module-${turn}.ts` } }])
        .toolResult('edit', 'x'.repeat(options.resultLength ?? 400))
        .assistant(`Done with step ${turn}.`);
    }
    return this;
  }

  bashExecution(command: string, output: string, options: BashOptions = {}): this {
    return this.append({
      type: 'message',
      message: {
        role: 'bashExecution',
        command,
        output,
        exitCode: options.exitCode ?? 0,
        cancelled: options.cancelled ?? false,
        truncated: options.truncated ?? false,
        ...(options.excludeFromContext !== undefined
          ? { excludeFromContext: options.excludeFromContext }
          : {}),
        timestamp: this.nextMillis(),
      },
    });
  }

  /** A `message` entry with the extension role `custom`. */
  customRoleMessage(customType: string, content: string, options: CustomContentOptions = {}): this {
    return this.append({
      type: 'message',
      message: {
        role: 'custom',
        customType,
        content,
        display: options.display ?? true,
        ...(options.details !== undefined ? { details: options.details } : {}),
        timestamp: this.nextMillis(),
      },
    });
  }

  /** A `custom_message` entry (enters the context as a user message). */
  customMessage(customType: string, content: string, options: CustomContentOptions = {}): this {
    return this.append({
      type: 'custom_message',
      customType,
      content,
      display: options.display ?? true,
      ...(options.details !== undefined ? { details: options.details } : {}),
    });
  }

  branchSummary(fromId: string, summary: string, options: BranchSummaryOptions = {}): this {
    return this.append({
      type: 'branch_summary',
      fromId,
      summary,
      ...(options.details !== undefined ? { details: options.details } : {}),
      ...(options.fromExtension !== undefined ? { fromExtension: options.fromExtension } : {}),
      ...(options.fromHook !== undefined ? { fromHook: options.fromHook } : {}),
    });
  }

  compaction(spec: CompactionSpec): this {
    return this.append({
      type: 'compaction',
      summary: spec.summary ?? `Summary before ${spec.firstKeptEntryId}`,
      ...(spec.shortSummary !== undefined ? { shortSummary: spec.shortSummary } : {}),
      firstKeptEntryId: spec.firstKeptEntryId,
      tokensBefore: spec.tokensBefore,
      ...(spec.details !== undefined ? { details: spec.details } : {}),
      ...(spec.fromHook !== undefined
        ? { fromHook: spec.fromHook }
        : { fromExtension: spec.fromExtension ?? false }),
    });
  }

  /** A model change in oh-my-pi's shape (`model: "provider/modelId"`, optional role). */
  modelChange(model: string, role?: string): this {
    return this.append({ type: 'model_change', model, ...(role !== undefined ? { role } : {}) });
  }

  /** A model change as pi writes it: `provider` and `modelId`. */
  piModelChange(provider: string, modelId: string): this {
    return this.append({ type: 'model_change', provider, modelId });
  }

  thinkingLevelChange(thinkingLevel: ThinkingLevel): this {
    return this.append({ type: 'thinking_level_change', thinkingLevel });
  }

  /** A label entry; `label` undefined or empty clears the target's label. */
  label(targetId: string, label?: string): this {
    return this.append({ type: 'label', targetId, ...(label !== undefined ? { label } : {}) });
  }

  custom(customType: string, data?: unknown): this {
    return this.append({ type: 'custom', customType, ...(data !== undefined ? { data } : {}) });
  }

  private append(fields: EntryFields<SessionEntry>): this {
    const position = this.appended.length + 1;
    const entry = {
      type: fields.type,
      id: this.idAt(position),
      parentId: this.leaf,
      timestamp: new Date(this.millisAt(position)).toISOString(),
      ...fields,
    } as SessionEntry;
    this.appended.push(entry);
    this.leaf = entry.id;
    return this;
  }

  private idAt(position: number): string {
    return `${this.idPrefix}${String(position).padStart(4, '0')}`;
  }

  private millisAt(position: number): number {
    return this.baseMillis + position * 1000;
  }

  /** Timestamp (ms) of the entry about to be appended. */
  private nextMillis(): number {
    return this.millisAt(this.appended.length + 1);
  }

  private toolCall(spec: ToolCallSpec): ToolCall {
    this.toolCallCounter += 1;
    return {
      type: 'toolCall',
      id: spec.id ?? `call_${String(this.toolCallCounter).padStart(4, '0')}`,
      name: spec.name,
      arguments: spec.arguments ?? {},
    };
  }

  private claimToolCall(toolName: string): string {
    const index = this.unansweredToolCalls.findIndex((call) => call.name === toolName);
    if (index >= 0) {
      const [claimed] = this.unansweredToolCalls.splice(index, 1);
      if (claimed) return claimed.id;
    }
    this.toolCallCounter += 1;
    return `call_${String(this.toolCallCounter).padStart(4, '0')}`;
  }

  private usageFor(content: AssistantContent, override: Partial<Usage> = {}): Usage {
    const characters = content.reduce((total, block) => {
      switch (block.type) {
        case 'text':
          return total + block.text.length;
        case 'thinking':
          return total + block.thinking.length;
        case 'toolCall':
          return total + block.name.length + JSON.stringify(block.arguments).length;
        default: {
          const unreachable: never = block;
          return unreachable;
        }
      }
    }, 0);
    const input = override.input ?? 1000 + 100 * this.appended.length;
    const output = override.output ?? Math.ceil(characters / 4);
    const cacheRead = override.cacheRead ?? 0;
    const cacheWrite = override.cacheWrite ?? 0;
    return {
      input,
      output,
      cacheRead,
      cacheWrite,
      totalTokens: override.totalTokens ?? input + output + cacheRead + cacheWrite,
      cost: override.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
  }
}

/** Shorthand: `session().user('hi').assistant('hello').entries`. */
export function session(options: SessionBuilderOptions = {}): SessionBuilder {
  return new SessionBuilder(options);
}
