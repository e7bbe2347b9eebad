// Byte-pair merging of one piece: the step of a tiktoken encoder that turns the bytes of a piece
// into tokens. js-tiktoken rescans every pair after every merge and builds a string key for each,
// which is quadratic in the piece's length (a 32,000-character run of one letter took 55 s). Here
// the parts form a linked list, the rank of each adjacent pair waits in a binary heap ordered by
// (rank, position), and a merge recomputes only the two pairs beside it: m·log m for m bytes (pair
// ranks are remembered by the ranks of their two tokens, so a repeated pair builds no key). The
// lowest rank merges first and, among equal ranks, the leftmost pair, exactly as tiktoken does,
// so the tokens come out the same. Pieces longer than the merger's capacity are the caller's to
// cut (see o200k-text-count.ts).
// Hand-written on purpose: js-tiktoken, the kept library, is the quadratic merge this replaces,
// and no library offers a heap merge over js-tiktoken's own ranks that gives its tokens exactly.
import type { ByteVocabulary } from './o200k-vocabulary';

/**
 * Counts elementary steps, for tests and benchmarks: the merge's pair look-ups and heap removals,
 * and (o200k-text-count.ts) one per byte compared when a window repeats the last one.
 */
export interface MergeMeter {
  steps: number;
}

/** Heap keys are rank × POSITION_SPAN + position, so that they order by rank, then position. */
const POSITION_SPAN = 65_536;
const NO_RANK = -1;
/** Pair keys are left rank × RANK_SPAN + right rank. */
const RANK_SPAN = 262_144;
/** Pair ranks remembered across merges before the memory is cleared. */
const REMEMBERED_PAIRS = 1_000_000;

export interface WindowCount {
  /** Tokens that end at or before the limit. */
  readonly tokens: number;
  /** Where the last of them ends, relative to the window's start (a token boundary). */
  readonly boundary: number;
}

export class BytePairMerger {
  private readonly next: Int32Array;
  private readonly previous: Int32Array;
  /** Rank of the pair (part at i, part after it); NO_RANK when it is no token or i is merged away. */
  private readonly pairRank: Int32Array;
  /** Rank of the token each part currently is. */
  private readonly partRank: Int32Array;
  private readonly heap: Float64Array;
  /** Byte value → the rank of that one byte. */
  private readonly byteRank: Int32Array;
  /** (left token, right token) → the rank of their concatenation, or NO_RANK. */
  private readonly pairs = new Map<number, number>();
  private heapSize = 0;
  private bytes = '';
  private start = 0;
  private length = 0;
  private steps = 0;

  constructor(
    private readonly vocabulary: ByteVocabulary,
    /** The longest span, in bytes, merged at once. */
    readonly capacity: number,
  ) {
    if (!(capacity >= vocabulary.longestTokenBytes && capacity < POSITION_SPAN)) {
      throw new Error(
        `a merger holds between ${vocabulary.longestTokenBytes} and ${POSITION_SPAN - 1} bytes`,
      );
    }
    this.next = new Int32Array(capacity + 1);
    this.previous = new Int32Array(capacity + 1);
    this.pairRank = new Int32Array(capacity + 1);
    this.partRank = new Int32Array(capacity + 1);
    this.heap = new Float64Array(3 * capacity + 1);
    this.byteRank = new Int32Array(256);
    if (vocabulary.highestRank >= RANK_SPAN) {
      throw new Error(`a merger takes ranks below ${RANK_SPAN}`);
    }
    for (let byte = 0; byte < 256; byte += 1) {
      this.byteRank[byte] = vocabulary.ranks.get(String.fromCharCode(byte)) ?? NO_RANK;
    }
  }

  /** Tokens of `bytes[start, end)` (one latin1 character per byte). */
  count(bytes: string, start: number, end: number, meter?: MergeMeter): number {
    const length = end - start;
    if (length <= 1) return Math.max(0, length);
    if (length <= this.vocabulary.longestTokenBytes) {
      const whole = start === 0 && end === bytes.length ? bytes : bytes.slice(start, end);
      if (this.vocabulary.ranks.has(whole)) return 1;
    }
    this.merge(bytes, start, end);
    let parts = 0;
    for (let part = 0; part < length; part = this.next[part] as number) parts += 1;
    this.report(meter);
    return parts;
  }

  /**
   * Merges `bytes[start, end)` as one piece and counts the tokens that end at or before
   * `start + limit`. With `limit` at least the longest token, at least one does.
   */
  countWindow(bytes: string, start: number, end: number, limit: number, meter?: MergeMeter): WindowCount {
    this.merge(bytes, start, end);
    let tokens = 0;
    let part = 0;
    while (part < this.length && (this.next[part] as number) <= limit) {
      tokens += 1;
      part = this.next[part] as number;
    }
    this.report(meter);
    return { tokens, boundary: part };
  }

  private report(meter: MergeMeter | undefined): void {
    if (meter !== undefined) meter.steps += this.steps;
    this.steps = 0;
  }

  private merge(bytes: string, start: number, end: number): void {
    const length = end - start;
    if (length > this.capacity)
      throw new Error(`a piece of ${length} bytes exceeds the merger's ${this.capacity}`);
    this.bytes = bytes;
    this.start = start;
    this.length = length;
    this.heapSize = 0;
    for (let part = 0; part <= length; part += 1) {
      this.next[part] = part + 1;
      this.previous[part] = part - 1;
    }
    for (let part = 0; part < length; part += 1) {
      this.partRank[part] = this.byteRank[bytes.charCodeAt(start + part) & 0xff] as number;
    }
    for (let part = 0; part < length; part += 1) this.refreshPair(part);
    while (this.heapSize > 0) {
      const key = this.popHeap();
      this.steps += 1;
      const rank = Math.floor(key / POSITION_SPAN);
      const part = key - rank * POSITION_SPAN;
      if (this.pairRank[part] !== rank) continue;
      const absorbed = this.next[part] as number;
      const after = this.next[absorbed] as number;
      this.next[part] = after;
      if (after < length) this.previous[after] = part;
      this.partRank[part] = rank;
      this.pairRank[absorbed] = NO_RANK;
      this.refreshPair(part);
      const before = this.previous[part] as number;
      if (before >= 0) this.refreshPair(before);
    }
  }

  /** Looks up the pair starting at `part` and queues it when it is a token. */
  private refreshPair(part: number): void {
    const second = this.next[part] as number;
    const end = second < this.length ? (this.next[second] as number) : this.length + 1;
    let rank = NO_RANK;
    if (end <= this.length && end - part <= this.vocabulary.longestTokenBytes) {
      this.steps += 1;
      const key = (this.partRank[part] as number) * RANK_SPAN + (this.partRank[second] as number);
      const remembered = this.pairs.get(key);
      if (remembered !== undefined) rank = remembered;
      else {
        rank = this.vocabulary.ranks.get(this.bytes.slice(this.start + part, this.start + end)) ?? NO_RANK;
        if (this.pairs.size >= REMEMBERED_PAIRS) this.pairs.clear();
        this.pairs.set(key, rank);
      }
    }
    this.pairRank[part] = rank;
    if (rank !== NO_RANK) this.pushHeap(rank * POSITION_SPAN + part);
  }

  private pushHeap(key: number): void {
    const heap = this.heap;
    let index = this.heapSize;
    this.heapSize += 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const parentKey = heap[parent] as number;
      if (parentKey <= key) break;
      heap[index] = parentKey;
      index = parent;
    }
    heap[index] = key;
  }

  private popHeap(): number {
    const heap = this.heap;
    const top = heap[0] as number;
    this.heapSize -= 1;
    const last = heap[this.heapSize] as number;
    const size = this.heapSize;
    let index = 0;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= size) break;
      if (child + 1 < size && (heap[child + 1] as number) < (heap[child] as number)) child += 1;
      if ((heap[child] as number) >= last) break;
      heap[index] = heap[child] as number;
      index = child;
    }
    heap[index] = last;
    return top;
  }
}
