// The context of one leaf built as a running structure (DESIGN.md decision 6): the root→leaf
// path, the session state gathered along it, the latest compaction, and the paired messages
// with their token counts. Extending it by a child of its leaf costs one step, so the context
// of the current leaf follows appends without walking or tokenising the history again. It
// gives the same result as `buildSessionContext` for its leaf (checked by property tests).
import {
  applyPathEntry,
  contextSettings,
  emptyPathSettings,
  isEmptyFailedAnswer,
  type CompactionEntry,
  type MissingFirstKeptEntry,
  type SessionContext,
  type SessionEntry,
} from '@strata/session';
import { PairingCursor, type CountedMessage } from './pairing-cursor';

/** What the cursor needs from its session: each entry's message and token count. */
export interface MessageSource {
  /** The message an entry contributes (pruned outputs as their notice), or undefined. */
  messageOf(entry: SessionEntry): CountedMessage | undefined;
  compactionSummaryOf(entry: CompactionEntry): CountedMessage;
  /** Tokens of a message no entry stands behind (a synthetic tool result). */
  tokensOfSynthetic: (message: CountedMessage['message']) => number;
}

export interface CountedContext {
  readonly context: SessionContext;
  readonly tokens: number;
  readonly messageTokens: readonly number[];
}

export class ContextCursor {
  private readonly path: SessionEntry[] = [];
  private readonly pathIndex = new Map<string, number>();
  private readonly settings = emptyPathSettings();
  private compaction: CompactionEntry | null = null;
  private missingFirstKeptEntry: MissingFirstKeptEntry | null = null;
  private omittedFailedAnswers: string[] = [];
  private pairing: PairingCursor;
  private snapshot: CountedContext | undefined;

  constructor(private readonly source: MessageSource) {
    this.pairing = new PairingCursor(source.tokensOfSynthetic);
  }

  /** The cursor of the root→leaf `path` (an empty path gives the empty context). */
  static along(path: readonly SessionEntry[], source: MessageSource): ContextCursor {
    const cursor = new ContextCursor(source);
    // What comes before the path's last compaction reaches the context only through it (its
    // kept entries are emitted again when it is reached), so it is recorded, never emitted:
    // nothing is counted that the context then drops.
    const lastCompaction = path.findLastIndex((entry) => entry.type === 'compaction');
    for (let index = 0; index < path.length; index += 1) {
      const entry = path[index] as SessionEntry;
      if (index < lastCompaction) cursor.record(entry);
      else cursor.extend(entry);
    }
    return cursor;
  }

  get leafId(): string | null {
    return this.path[this.path.length - 1]?.id ?? null;
  }

  /** Whether the entry lies on the cursor's path. */
  includes(entryId: string): boolean {
    return this.pathIndex.has(entryId);
  }

  /** Moves the leaf to `entry`, a child of the current leaf (the caller checks). */
  extend(entry: SessionEntry): void {
    this.snapshot = undefined;
    this.record(entry);
    if (entry.type === 'compaction') this.restartAt(entry);
    else this.emit(entry);
  }

  /** Puts `entry` on the path and gathers its settings, without emitting its message. */
  private record(entry: SessionEntry): void {
    this.path.push(entry);
    this.pathIndex.set(entry.id, this.path.length - 1);
    applyPathEntry(this.settings, entry);
  }

  /** The context at the leaf; computed once per change. */
  read(): CountedContext {
    this.snapshot ??= this.compose();
    return this.snapshot;
  }

  private emit(entry: SessionEntry): void {
    const counted = this.source.messageOf(entry);
    if (counted === undefined) return;
    if (isEmptyFailedAnswer(counted.message)) this.omittedFailedAnswers.push(entry.id);
    else this.pairing.push(counted);
  }

  /** A compaction on the path: its summary, then the kept entries before it, then what follows. */
  private restartAt(compaction: CompactionEntry): void {
    this.compaction = compaction;
    this.pairing = new PairingCursor(this.source.tokensOfSynthetic);
    this.omittedFailedAnswers = [];
    this.pairing.push(this.source.compactionSummaryOf(compaction));
    const compactionIndex = this.path.length - 1;
    const firstKeptIndex = this.pathIndex.get(compaction.firstKeptEntryId);
    if (firstKeptIndex === undefined || firstKeptIndex >= compactionIndex) {
      this.missingFirstKeptEntry = {
        compactionId: compaction.id,
        firstKeptEntryId: compaction.firstKeptEntryId,
      };
      return;
    }
    this.missingFirstKeptEntry = null;
    for (let index = firstKeptIndex; index < compactionIndex; index += 1) {
      this.emit(this.path[index] as SessionEntry);
    }
  }

  private compose(): CountedContext {
    const paired = this.pairing.snapshot();
    const hasLeaf = this.path.length > 0;
    const context: SessionContext = {
      messages: paired.messages,
      entryIds: paired.sourceIds,
      ...contextSettings(this.settings),
      leafId: this.leafId,
      compactionId: this.compaction ? this.compaction.id : null,
      repairs: {
        droppedOrphanResults: hasLeaf ? paired.droppedOrphanResults : [],
        synthesizedResults: hasLeaf ? paired.synthesizedResults : [],
        missingFirstKeptEntry: this.missingFirstKeptEntry,
        omittedFailedAnswers: [...this.omittedFailedAnswers],
      },
    };
    return { context, tokens: paired.tokens, messageTokens: paired.messageTokens };
  }
}
