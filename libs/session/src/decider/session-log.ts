// The append-only store behind session states, shared by every state of one fold so that
// `evolve` costs O(1) amortised instead of copying maps per event.
//
// Visibility rule: every write is tagged with the writer's `tick` (entries with their index).
// A state reads only records tagged below its own tick (entries below its own entryCount), so
// records appended for later states are invisible to earlier ones. A log is extended only by
// the state whose tick equals the log's tick (its newest state); any other state first takes
// `visibleCopy` (copy-on-fork), so forks never observe or disturb each other.
import type { PrunedResult } from '../context/build-session-context';
import { AncestorIndex } from './ancestor-index';
import type { SessionEntry } from '../entries/entries';
import { entryWeight } from '../entries/entry-weight';
import type {
  BranchSummaryOutcome,
  BranchSummaryStartedEvent,
  CompactionOutcome,
  CompactionStartedEvent,
  ContinuationRequestedEvent,
} from './session-events';

interface Tagged<Value> {
  readonly tick: number;
  readonly value: Value;
}

export type AttemptStart = CompactionStartedEvent | BranchSummaryStartedEvent;
export type AttemptOutcome = CompactionOutcome | BranchSummaryOutcome;

function visibleEntries<Key, Value>(
  map: ReadonlyMap<Key, Tagged<Value>>,
  tick: number,
): Map<Key, Tagged<Value>> {
  const copy = new Map<Key, Tagged<Value>>();
  for (const [key, record] of map) if (record.tick < tick) copy.set(key, record);
  return copy;
}

export class SessionLog {
  private constructor(
    private tickCount: number,
    private readonly entries: SessionEntry[],
    /** The summed `entryWeight` of the entries up to and including each index. */
    private readonly weightsUpTo: number[],
    private readonly ancestry: AncestorIndex,
    private readonly indexById: Map<string, number>,
    private readonly labelIndexesByTarget: Map<string, number[]>,
    /** `custom` entries by their `customType`, in append order (the newest of a type is read often). */
    private readonly customIndexesByType: Map<string, number[]>,
    private readonly pruned: Map<string, Tagged<PrunedResult>>,
    private readonly attemptStarts: Map<string, Tagged<AttemptStart>>,
    private readonly attemptOutcomes: Map<string, Tagged<AttemptOutcome>>,
    private readonly continuations: Map<string, Tagged<ContinuationRequestedEvent>>,
    /** Answer entry id → tokens saved by the pruning that answer caused. */
    private readonly pruningsAfterAnswers: Map<string, Tagged<number>>,
  ) {}

  static empty(): SessionLog {
    return new SessionLog(
      0,
      [],
      [],
      AncestorIndex.empty(),
      new Map(),
      new Map(),
      new Map(),
      new Map(),
      new Map(),
      new Map(),
      new Map(),
      new Map(),
    );
  }

  get tick(): number {
    return this.tickCount;
  }

  /** This log when the state at (`tick`, `entryCount`) is its newest, else a copy of what it sees. */
  ownedBy(tick: number, entryCount: number): SessionLog {
    return tick === this.tickCount ? this : this.visibleCopy(tick, entryCount);
  }

  private visibleCopy(tick: number, entryCount: number): SessionLog {
    const entries = this.entries.slice(0, entryCount);
    const indexById = new Map<string, number>();
    entries.forEach((entry, index) => indexById.set(entry.id, index));
    return new SessionLog(
      tick,
      entries,
      this.weightsUpTo.slice(0, entryCount),
      this.ancestry.copy(entryCount),
      indexById,
      indexesBelow(this.labelIndexesByTarget, entryCount),
      indexesBelow(this.customIndexesByType, entryCount),
      visibleEntries(this.pruned, tick),
      visibleEntries(this.attemptStarts, tick),
      visibleEntries(this.attemptOutcomes, tick),
      visibleEntries(this.continuations, tick),
      visibleEntries(this.pruningsAfterAnswers, tick),
    );
  }

  /** Claims the next tick for one write; returns the tick the write is tagged with. */
  private claim(): number {
    const tick = this.tickCount;
    this.tickCount += 1;
    return tick;
  }

  /** Each write below is ignored (returns false) when its key is already taken. */
  appendEntry(entry: SessionEntry): boolean {
    if (this.indexById.has(entry.id)) return false;
    this.claim();
    const index = this.entries.length;
    const parentIndex = entry.parentId === null ? undefined : this.indexById.get(entry.parentId);
    this.entries.push(entry);
    this.weightsUpTo.push((this.weightsUpTo[index - 1] ?? 0) + entryWeight(entry));
    this.ancestry.add(parentIndex);
    this.indexById.set(entry.id, index);
    if (entry.type === 'label') addIndex(this.labelIndexesByTarget, entry.targetId, index);
    if (entry.type === 'custom') addIndex(this.customIndexesByType, entry.customType, index);
    return true;
  }

  recordPruning(entryId: string, output: PrunedResult): boolean {
    return this.recordOnce(this.pruned, entryId, output);
  }

  recordPruningAfter(answerEntryId: string, tokensSaved: number): boolean {
    return this.recordOnce(this.pruningsAfterAnswers, answerEntryId, tokensSaved);
  }

  recordAttemptStart(started: AttemptStart): boolean {
    return this.recordOnce(this.attemptStarts, started.data.attemptId, started);
  }

  recordAttemptOutcome(outcome: AttemptOutcome): boolean {
    return this.recordOnce(this.attemptOutcomes, outcome.data.attemptId, outcome);
  }

  recordContinuation(requested: ContinuationRequestedEvent): boolean {
    return this.recordOnce(this.continuations, requested.data.causationAttemptId, requested);
  }

  private recordOnce<Value>(map: Map<string, Tagged<Value>>, key: string, value: Value): boolean {
    if (map.has(key)) return false;
    map.set(key, { tick: this.claim(), value });
    return true;
  }

  indexOf(entryId: string, entryCount: number): number | undefined {
    const index = this.indexById.get(entryId);
    return index !== undefined && index < entryCount ? index : undefined;
  }

  /** The summed `entryWeight` of the first `entryCount` entries. */
  weightOf(entryCount: number): number {
    return entryCount === 0 ? 0 : (this.weightsUpTo[entryCount - 1] ?? 0);
  }

  /** Callers pass an index below their entryCount, which is always present. */
  entryAt(index: number): SessionEntry {
    const entry = this.entries[index];
    if (!entry) throw new RangeError(`no entry at index ${index}`);
    return entry;
  }

  /** The parent's index, or undefined for a root (or an entry whose parent was unknown). */
  parentIndexAt(index: number): number | undefined {
    return this.ancestry.parentAt(index);
  }

  /** Whether the entry at `ancestorIndex` is the one at `index` or one of its ancestors. */
  isAncestorOrSelf(ancestorIndex: number, index: number): boolean {
    return this.ancestry.isAncestorOrSelf(ancestorIndex, index);
  }

  /** The tree of the first `entryCount` entries, to grow apart from this log (batch checks). */
  ancestryOf(entryCount: number): AncestorIndex {
    return this.ancestry.extend(entryCount);
  }

  entriesBefore(entryCount: number): readonly SessionEntry[] {
    return this.entries.slice(0, entryCount);
  }

  /** The label entry in force for `targetId`: the last one visible below `entryCount`. */
  lastLabelIndex(targetId: string, entryCount: number): number | undefined {
    return lastIndexBelow(this.labelIndexesByTarget.get(targetId), entryCount);
  }

  /** The newest `custom` entry of `customType` visible below `entryCount`. */
  lastCustomIndex(customType: string, entryCount: number): number | undefined {
    return lastIndexBelow(this.customIndexesByType.get(customType), entryCount);
  }

  labelTargets(): Iterable<string> {
    return this.labelIndexesByTarget.keys();
  }

  prunedResult(entryId: string, tick: number): PrunedResult | undefined {
    return visible(this.pruned.get(entryId), tick);
  }

  prunedEntryIds(): Iterable<string> {
    return this.pruned.keys();
  }

  pruningSavedAfter(answerEntryId: string, tick: number): number | undefined {
    return visible(this.pruningsAfterAnswers.get(answerEntryId), tick);
  }

  attemptStart(attemptId: string, tick: number): AttemptStart | undefined {
    return visible(this.attemptStarts.get(attemptId), tick);
  }

  attemptOutcome(attemptId: string, tick: number): AttemptOutcome | undefined {
    return visible(this.attemptOutcomes.get(attemptId), tick);
  }

  continuation(attemptId: string, tick: number): ContinuationRequestedEvent | undefined {
    return visible(this.continuations.get(attemptId), tick);
  }

  attemptIds(): Iterable<string> {
    return this.attemptStarts.keys();
  }
}

function addIndex(indexesByKey: Map<string, number[]>, key: string, index: number): void {
  const indexes = indexesByKey.get(key);
  if (indexes) indexes.push(index);
  else indexesByKey.set(key, [index]);
}

/** The indexes below `entryCount` of each key (a copy; keys left without any are dropped). */
function indexesBelow(
  indexesByKey: ReadonlyMap<string, number[]>,
  entryCount: number,
): Map<string, number[]> {
  const copy = new Map<string, number[]>();
  for (const [key, indexes] of indexesByKey) {
    const visible = indexes.filter((index) => index < entryCount);
    if (visible.length > 0) copy.set(key, visible);
  }
  return copy;
}

function lastIndexBelow(indexes: readonly number[] | undefined, entryCount: number): number | undefined {
  if (!indexes) return undefined;
  for (let position = indexes.length - 1; position >= 0; position -= 1) {
    const index = indexes[position];
    if (index !== undefined && index < entryCount) return index;
  }
  return undefined;
}

function visible<Value>(record: Tagged<Value> | undefined, tick: number): Value | undefined {
  return record !== undefined && record.tick < tick ? record.value : undefined;
}
