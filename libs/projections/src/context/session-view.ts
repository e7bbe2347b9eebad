// One session as the context projection holds it in memory: the tree (entries, index by id,
// children, labels), the current leaf, pruned outputs, per-entry token counts (computed once,
// when first needed, or taken from the counts stored for the entries' events while hydrating:
// entry-count-records.ts), and a running context for the current leaf. Events are applied in
// stream order and folded as the decider folds them; an event out of order is refused so that
// the owner can drop a copy that missed something.
import {
  entryWeight,
  buildSessionContext,
  compactionSummaryMessage,
  estimateMessageTokens,
  messageFromEntry,
  messageTokenPieces,
  pathToEntry,
  prunedResultNotice,
  type AgentMessage,
  type CompactionEntry,
  type PrunedResult,
  type SessionContext,
  type SessionEntry,
  type SessionHeader,
  type SessionTree,
  type TokenCounter,
  type ToolResultMessage,
} from '@strata/session';
import type { PreparedTokenCounter } from '@strata/tokenizer';
import type { ProjectedEvent } from '../runner/projected-event';
import { EntryCountRecords } from './entry-count-records';
import type { StoredTokenCount } from './token-count-storage';
import type { SessionSnapshotState } from './session-snapshot';
import { ContextCursor, type CountedContext, type MessageSource } from './context-cursor';
import type { CountedMessage } from './pairing-cursor';

/** The context of one leaf with its token count, as the context projection answers it. */
export interface ProjectedContext {
  readonly sessionId: string;
  /** The tenant of the event that started the session. */
  readonly tenant: string;
  /** Exactly what `buildSessionContext` gives for the leaf. */
  readonly context: SessionContext;
  /** Estimated tokens of `context.messages` with the projection's counter. */
  readonly tokens: number;
  /** Estimated tokens of each message, in order. */
  readonly messageTokens: readonly number[];
  /** The counter's name (`o200k`, `chars4`). */
  readonly tokenCounter: string;
  /** The last event of the stream the context reflects. */
  readonly revision: bigint;
  readonly position: bigint;
}

/** The session tree of `buildSessionTree`, with the header and the current leaf. */
export interface SessionTreeView extends SessionTree {
  readonly sessionId: string;
  readonly tenant: string;
  readonly header: SessionHeader;
  readonly leafId: string | null;
  readonly revision: bigint;
  readonly position: bigint;
}

/** Counters shared by the views of one projection. */
export interface SessionViewMetrics {
  /** Times the running context of a current leaf was built from its path (not extended). */
  currentLeafBuilds: number;
}

export type ApplyOutcome = 'applied' | 'duplicate' | 'gap';

/** A leaf that is not an entry of the session. */
export class UnknownEntryError extends Error {
  override readonly name = 'UnknownEntryError';

  constructor(
    readonly sessionId: string,
    readonly entryId: string,
  ) {
    super(`session ${sessionId} has no entry ${entryId}`);
  }
}

/** The counter's preparation, when it offers one (the engine's o200k counter does). */
export function preparedCounterOf(counter: TokenCounter): PreparedTokenCounter | undefined {
  const candidate = counter as Partial<PreparedTokenCounter>;
  return typeof candidate.countAhead === 'function' && typeof candidate.isReady === 'function'
    ? (counter as PreparedTokenCounter)
    : undefined;
}

function prunedView(message: ToolResultMessage, pruned: PrunedResult): ToolResultMessage {
  return {
    ...message,
    content: [{ type: 'text', text: prunedResultNotice(pruned.tokens) }],
    prunedAt: pruned.prunedAt,
  };
}

export class SessionView implements MessageSource {
  header: SessionHeader | null = null;
  /** The tenant of the event that started the session (null before it). */
  tenant: string | null = null;
  leafId: string | null = null;
  /** The last applied event's stream revision (−1: none) and global position. */
  revision = -1n;
  position = -1n;
  /** The id of the last event applied or stepped over ('' before any). */
  lastEventId = '';
  private readonly entries: SessionEntry[] = [];
  private readonly byId = new Map<string, SessionEntry>();
  private children = new Map<string | null, string[]>();
  private readonly labels = new Map<string, string>();
  private readonly danglingParents = new Set<string>();
  private readonly prunedResults = new Map<string, PrunedResult>();
  private readonly tokenCounts = new Map<string, number>();
  /** Present when the owner stores counts: what to take from storage and to give back. */
  private readonly countRecords: EntryCountRecords | undefined;
  private cursor: ContextCursor | undefined;
  private heldWeight = 0;
  /** The counter's preparation, when it offers one: long texts are counted ahead in slices. */
  readonly preparedCounter: PreparedTokenCounter | undefined;

  constructor(
    readonly sessionId: string,
    private readonly counter: TokenCounter,
    private readonly metrics: SessionViewMetrics = { currentLeafBuilds: 0 },
    storesCounts = false,
  ) {
    this.preparedCounter = preparedCounterOf(counter);
    this.countRecords = storesCounts ? new EntryCountRecords() : undefined;
  }

  get entryCount(): number {
    return this.entries.length;
  }

  /** What the entries held weigh in the projection's bound (`entryWeight`, summed). */
  get weight(): number {
    return this.heldWeight;
  }

  get isStarted(): boolean {
    return this.header !== null;
  }

  /** Applies the next event of the stream; an earlier one is a duplicate, a later one a gap. */
  apply(projected: ProjectedEvent): ApplyOutcome {
    if (projected.revision <= this.revision) return 'duplicate';
    if (projected.revision !== this.revision + 1n) return 'gap';
    this.revision = projected.revision;
    this.position = projected.position;
    this.lastEventId = projected.eventId;
    const { event } = projected;
    if (this.header === null) {
      if (event.type === 'SessionStarted') {
        this.header = event.data.header;
        this.tenant = projected.tenant;
      }
      return 'applied';
    }
    switch (event.type) {
      case 'EntryAppended':
        this.append(event.data.entry, projected.eventHash);
        break;
      case 'LeafMoved':
        this.leafId = event.data.leafId;
        if (this.cursor !== undefined && this.cursor.leafId !== this.leafId) this.cursor = undefined;
        break;
      case 'ToolOutputsPruned':
        for (const result of event.data.results) {
          if (this.prunedResults.has(result.entryId)) continue;
          this.prunedResults.set(result.entryId, { prunedAt: event.data.prunedAt, tokens: result.tokens });
          this.tokenCounts.delete(result.entryId);
          this.countRecords?.pruned(result.entryId);
          if (this.cursor?.includes(result.entryId)) this.cursor = undefined;
        }
        break;
      case 'SessionStarted':
      case 'CompactionStarted':
      case 'CompactionCompleted':
      case 'CompactionSkipped':
      case 'CompactionCancelled':
      case 'CompactionFailed':
      case 'BranchSummaryStarted':
      case 'BranchSummaryCompleted':
      case 'BranchSummarySkipped':
      case 'BranchSummaryCancelled':
      case 'BranchSummaryFailed':
      case 'ContinuationRequested':
      case 'LeaseTaken':
      case 'LeaseRenewed':
      case 'LeaseReleased':
      case 'LeaseExpired':
        break;
      default: {
        const unhandled: never = event;
        throw new Error(`unhandled session event ${JSON.stringify(unhandled)}`);
      }
    }
    return 'applied';
  }

  /** Offers counts stored for the session's events to the entries applied next (a hydration). */
  useStoredCounts(counts: ReadonlyMap<string, StoredTokenCount> | undefined): void {
    this.countRecords?.offer(counts);
  }

  /** The counts made since the last call, each with the hash of its entry's event (to store). */
  takeFreshCounts(): readonly StoredTokenCount[] {
    return this.countRecords?.take() ?? [];
  }

  /** Steps over an event of the stream that is not a session event, so the next one is in order. */
  skip(revision: bigint, position: bigint, eventId: string): void {
    if (revision !== this.revision + 1n) return;
    this.revision = revision;
    this.position = position;
    this.lastEventId = eventId;
  }

  /** A copy of the state a snapshot keeps (session-snapshot.ts); undefined before the session started. */
  snapshotState(counterKey: string): SessionSnapshotState | undefined {
    if (this.header === null || this.tenant === null) return undefined;
    return {
      sessionId: this.sessionId,
      counterKey,
      tenant: this.tenant,
      header: this.header,
      leafId: this.leafId,
      revision: this.revision,
      position: this.position,
      lastEventId: this.lastEventId,
      entries: [...this.entries],
      weight: this.heldWeight,
      counts: this.entries.map((entry) => this.tokenCounts.get(entry.id) ?? null),
      prunedResults: [...this.prunedResults],
      uncounted: this.countRecords?.uncounted() ?? [],
    };
  }

  /** Takes the state of a snapshot; only on a new view (a hydration that found one). */
  restore(state: SessionSnapshotState): void {
    if (this.revision !== -1n) throw new Error(`session ${this.sessionId} is already folded`);
    this.header = state.header;
    this.tenant = state.tenant;
    for (const [entryId, pruned] of state.prunedResults) this.prunedResults.set(entryId, pruned);
    // The weight is taken as stored: weighing every entry's text again cost a fifth of the read.
    state.entries.forEach((entry, index) => {
      this.file(entry, false);
      const count = state.counts[index];
      if (count !== null && count !== undefined) this.tokenCounts.set(entry.id, count);
    });
    this.countRecords?.noteUncounted(state.uncounted);
    this.heldWeight = state.weight;
    this.leafId = state.leafId;
    this.revision = state.revision;
    this.position = state.position;
    this.lastEventId = state.lastEventId;
  }

  /** The context at `leafId` (the current leaf when undefined; null gives the empty context). */
  contextAt(leafId?: string | null): ProjectedContext {
    const target = leafId === undefined ? this.leafId : leafId;
    if (target !== null && !this.byId.has(target)) throw new UnknownEntryError(this.sessionId, target);
    const counted = target === this.leafId ? this.currentContext() : this.builtContext(target);
    return {
      sessionId: this.sessionId,
      tenant: this.tenant ?? '',
      ...counted,
      tokenCounter: this.counter.name,
      revision: this.revision,
      position: this.position,
    };
  }

  /** A copy of the tree, as `buildSessionTree` would give it. */
  tree(): SessionTreeView {
    if (this.header === null || this.tenant === null)
      throw new Error(`session ${this.sessionId} has not started`);
    const children = new Map<string | null, readonly string[]>();
    for (const [parentId, childIds] of this.children) children.set(parentId, [...childIds]);
    return {
      sessionId: this.sessionId,
      tenant: this.tenant,
      header: this.header,
      entries: [...this.entries],
      byId: new Map(this.byId),
      children,
      labels: new Map(this.labels),
      lastEntryId: this.entries[this.entries.length - 1]?.id ?? null,
      leafId: this.leafId,
      revision: this.revision,
      position: this.position,
    };
  }

  /**
   * The entries whose token counts a context at `leafId` may need and that are not counted yet,
   * root side first: the path from the leaf back to the first kept entry of the latest compaction
   * on it (the whole path when it has none). Empty for an unknown leaf, and for the current leaf
   * while its running context is kept (it counts each entry as it arrives): a warm read of the
   * current leaf does not walk the history.
   */
  uncountedEntries(leafId?: string | null): SessionEntry[] {
    const target = leafId === undefined ? this.leafId : leafId;
    if (target === this.leafId && this.cursor !== undefined) return [];
    const pending: SessionEntry[] = [];
    const visited = new Set<string>();
    let firstKeptId: string | undefined;
    let current = target === null ? undefined : this.byId.get(target);
    while (current !== undefined && !visited.has(current.id)) {
      visited.add(current.id);
      if (!this.tokenCounts.has(current.id)) pending.push(current);
      if (current.id === firstKeptId) break;
      if (current.type === 'compaction' && firstKeptId === undefined) firstKeptId = current.firstKeptEntryId;
      current = current.parentId === null ? undefined : this.byId.get(current.parentId);
    }
    return pending.reverse();
  }

  /** The texts whose tokens `countEntry` would count now (none when the entry is counted). */
  textsToCount(entry: SessionEntry): readonly string[] {
    if (this.tokenCounts.has(entry.id)) return [];
    const message =
      entry.type === 'compaction' ? compactionSummaryMessage(entry) : this.contextMessage(entry);
    return message === undefined ? [] : messageTokenPieces(message).pieces;
  }

  /** Counts and keeps the tokens of what `entry` puts in a context, as a context read would. */
  countEntry(entry: SessionEntry): void {
    if (entry.type === 'compaction') this.compactionSummaryOf(entry);
    else this.messageOf(entry);
  }

  messageOf(entry: SessionEntry): CountedMessage | undefined {
    const message = this.contextMessage(entry);
    return message === undefined
      ? undefined
      : { message, sourceId: entry.id, tokens: this.tokensOf(entry, message) };
  }

  compactionSummaryOf(entry: CompactionEntry): CountedMessage {
    const message = compactionSummaryMessage(entry);
    return { message, sourceId: null, tokens: this.tokensOf(entry, message) };
  }

  readonly tokensOfSynthetic = (message: AgentMessage): number =>
    estimateMessageTokens(message, this.counter);

  private contextMessage(entry: SessionEntry): AgentMessage | undefined {
    const message = messageFromEntry(entry);
    if (message === undefined || message.role !== 'toolResult') return message;
    const pruned = this.prunedResults.get(entry.id);
    return pruned === undefined ? message : prunedView(message, pruned);
  }

  /** The cached count of an entry's context message (its compaction summary for a compaction). */
  private tokensOf(entry: SessionEntry, message: AgentMessage): number {
    let tokens = this.tokenCounts.get(entry.id);
    if (tokens === undefined) {
      tokens = estimateMessageTokens(message, this.counter);
      this.tokenCounts.set(entry.id, tokens);
      this.countRecords?.counted(entry, tokens, this.prunedResults.has(entry.id));
    }
    return tokens;
  }

  private append(entry: SessionEntry, eventHash: string | undefined): void {
    if (this.byId.has(entry.id)) return;
    const stored =
      eventHash === undefined || this.prunedResults.has(entry.id)
        ? undefined
        : this.countRecords?.adopt(entry, eventHash);
    if (stored !== undefined) this.tokenCounts.set(entry.id, stored);
    this.file(entry);
    // A text too long to count at once is left to the next read, which counts it in slices.
    const cursor = this.cursor;
    const extendable =
      cursor !== undefined &&
      cursor.leafId === entry.parentId &&
      (this.preparedCounter?.isReady(this.textsToCount(entry)) ?? true);
    if (extendable) cursor.extend(entry);
    else this.cursor = undefined;
    this.leafId = entry.id;
  }

  /** Files a new entry in the tree: the entries, the index, the children, the labels. */
  private file(entry: SessionEntry, weigh = true): void {
    this.entries.push(entry);
    if (weigh) this.heldWeight += entryWeight(entry);
    this.byId.set(entry.id, entry);
    const parentKnown =
      entry.parentId !== null && entry.parentId !== entry.id && this.byId.has(entry.parentId);
    if (entry.parentId !== null && !parentKnown) this.danglingParents.add(entry.parentId);
    if (this.danglingParents.has(entry.id)) {
      this.danglingParents.delete(entry.id);
      this.rebuildChildren();
      this.cursor = undefined;
    } else {
      const key = parentKnown ? entry.parentId : null;
      const siblings = this.children.get(key);
      if (siblings) siblings.push(entry.id);
      else this.children.set(key, [entry.id]);
    }
    if (entry.type === 'label') {
      if (entry.label) this.labels.set(entry.targetId, entry.label);
      else this.labels.delete(entry.targetId);
    }
  }

  /** Children as `buildSessionTree` files them, after an entry filled a missing parent. */
  private rebuildChildren(): void {
    this.children = new Map();
    for (const entry of this.entries) {
      const isRoot = entry.parentId === null || entry.parentId === entry.id || !this.byId.has(entry.parentId);
      const key = isRoot ? null : entry.parentId;
      const siblings = this.children.get(key);
      if (siblings) siblings.push(entry.id);
      else this.children.set(key, [entry.id]);
    }
  }

  private currentContext(): CountedContext {
    if (this.cursor === undefined) {
      this.metrics.currentLeafBuilds += 1;
      this.cursor = ContextCursor.along(
        this.leafId === null ? [] : pathToEntry(this.byId, this.leafId),
        this,
      );
    }
    return this.cursor.read();
  }

  /** Another leaf: the pure builder, with token counts from the cache. */
  private builtContext(leafId: string | null): CountedContext {
    const context = buildSessionContext({ entries: this.entries, byId: this.byId }, leafId, {
      prunedResults: this.prunedResults,
    });
    const messageTokens = context.messages.map((message, index) => {
      const entryId = context.entryIds[index] ?? null;
      const entry = entryId !== null ? this.byId.get(entryId) : undefined;
      if (entry !== undefined) return this.tokensOf(entry, message);
      const compaction = context.compactionId !== null ? this.byId.get(context.compactionId) : undefined;
      if (message.role === 'compactionSummary' && compaction !== undefined)
        return this.tokensOf(compaction, message);
      return this.tokensOfSynthetic(message);
    });
    const tokens = messageTokens.reduce((total, count) => total + count, 0);
    return { context, tokens, messageTokens };
  }
}
