// Counting one text with o200k_base, in steps that can stop and resume. The text is cut into
// pieces by the encoding's pattern, each piece is encoded as UTF-8 and merged (byte-pair-merge.ts).
// A piece of up to MERGE_WINDOW_BYTES + WINDOW_LOOKAHEAD_BYTES is merged whole, exactly. A longer
// one (a run of one character, a line of base64, a paragraph of Chinese) is merged window by
// window: each window reaches WINDOW_LOOKAHEAD_BYTES past MERGE_WINDOW_BYTES, the tokens ending
// by MERGE_WINDOW_BYTES are kept, and the next window starts where the last of them ends. So the
// work is linear in the text's length whatever it holds. The count equals exact o200k whenever
// the merge of what lies beyond a window cannot change the tokens a lookahead's length before its
// end: that held in every case measured (bench tokenizer suite, docs/compatibility.md). A window
// that repeats the last one (as in a run of one character) reuses its result. The pattern itself
// runs over segments of about PATTERN_SEGMENT_CHARACTERS, cut only inside runs of letters or
// punctuation where the piece provably goes on, so that matching one long piece (up to 35 ns a
// byte, for Chinese) cannot hold a count's step for long either; the parts are merged as one.
import { BytePairMerger, type MergeMeter } from './byte-pair-merge';
import { o200kVocabulary } from './o200k-vocabulary';

/** Bytes of a long piece whose tokens one window settles. */
export const MERGE_WINDOW_BYTES = 8192;
/** Bytes a window merges beyond what it settles, so that its cut does not reach them. */
export const WINDOW_LOOKAHEAD_BYTES = 1024;
/** Bytes counted between two questions whether to pause. */
const BYTES_BETWEEN_PAUSES = 4096;

/** A UTF-16 code unit from U+0080 up: the text is not ASCII, whose UTF-8 bytes are its code units. */
const NON_ASCII = /[\u0080-\uffff]/;

let sharedMerger: BytePairMerger | undefined;
/** The last window merged and what it settled: a run of one character repeats its windows. */
let lastWindow: { readonly bytes: string; readonly tokens: number; readonly boundary: number } | undefined;

function merger(): BytePairMerger {
  sharedMerger ??= new BytePairMerger(o200kVocabulary(), MERGE_WINDOW_BYTES + WINDOW_LOOKAHEAD_BYTES);
  return sharedMerger;
}

/** A piece's UTF-8 bytes as a latin1 string (the piece itself when it is ASCII). */
function utf8Bytes(piece: string): string {
  return !NON_ASCII.test(piece) ? piece : Buffer.from(piece, 'utf8').toString('latin1');
}

/**
 * Where a text may be cut for the pattern: between the second and the third of three caseless
 * letters or marks whose second is a letter (Chinese, kana, Thai; marks alone may end a punctuation
 * piece), of three lower-case or three upper-case letters not after an apostrophe (`'ll`, `'re`
 * end a piece), or of four punctuation characters other than marks (a mark after punctuation
 * starts a letter piece) and `/` (a piece's tail). There the piece holding them goes on across
 * the cut, its two parts end and start exactly at it, and no other piece reads over it: the parts
 * are merged as one piece, and the pieces are those of the whole text (tested against js-tiktoken).
 */
const CUTTABLE_RUN =
  /[\p{Lo}\p{Lm}\p{M}][\p{Lo}\p{Lm}][\p{Lo}\p{Lm}\p{M}]|(?<!')\p{Ll}{3}|(?<!')\p{Lu}{3}|[^\s\p{L}\p{N}\p{M}/]{4}/gu;

/** Characters the pattern is run over at once, so that one match takes milliseconds at most. */
export const PATTERN_SEGMENT_CHARACTERS = 65_536;

/** A piece longer than one merge, merged window by window; `open` while its end lies past a cut. */
interface LongPiece {
  bytes: string;
  offset: number;
  open: boolean;
}

export class O200kTextCount {
  private counted = 0;
  private finished: boolean;
  private readonly splitter: RegExp;
  /** The part of the text the pattern runs over now: [segmentStart, segmentEnd). */
  private segment = '';
  private segmentStart = 0;
  private segmentEnd = 0;
  private longPiece: LongPiece | undefined;

  constructor(
    private readonly text: string,
    private readonly meter?: MergeMeter,
    private readonly segmentCharacters: number = PATTERN_SEGMENT_CHARACTERS,
  ) {
    this.splitter = new RegExp(o200kVocabulary().pattern, 'gu');
    this.finished = text.length === 0;
    this.startSegment(0);
  }

  /** Tokens counted so far (all of them once `done`). */
  get tokens(): number {
    return this.counted;
  }

  get done(): boolean {
    return this.finished;
  }

  /**
   * Counts on until the text is done, or until `pause()` answers true (asked every few kilobytes
   * and after each window of a long piece). Returns whether the text is done.
   */
  advance(pause: () => boolean): boolean {
    let sincePause = 0;
    while (!this.finished) {
      sincePause += this.longPiece !== undefined ? this.countWindow(this.longPiece) : this.countNextPiece();
      if (sincePause >= BYTES_BETWEEN_PAUSES) {
        sincePause = 0;
        if (pause()) return this.finished;
      }
    }
    return true;
  }

  /** Starts the segment at `start`: up to the first cuttable place past `segmentCharacters`. */
  private startSegment(start: number): void {
    let end = this.text.length;
    if (this.text.length - start > this.segmentCharacters) {
      CUTTABLE_RUN.lastIndex = start + this.segmentCharacters;
      const run = CUTTABLE_RUN.exec(this.text);
      if (run !== null) {
        const first = run[0].codePointAt(0) as number;
        const second = run[0].codePointAt(first > 0xffff ? 2 : 1) as number;
        end = run.index + (first > 0xffff ? 2 : 1) + (second > 0xffff ? 2 : 1);
      }
    }
    this.segmentStart = start;
    this.segmentEnd = end;
    this.segment = start === 0 && end === this.text.length ? this.text : this.text.slice(start, end);
    this.splitter.lastIndex = 0;
  }

  /** The next piece of the text, moving to the next segment when this one is done; null at the end. */
  private nextMatch(): { readonly piece: string; readonly atStart: boolean; readonly atCut: boolean } | null {
    for (;;) {
      const match = this.splitter.exec(this.segment);
      if (match !== null) {
        const piece = match[0];
        if (piece.length === 0) {
          this.splitter.lastIndex += 1;
          continue;
        }
        const end = match.index + piece.length;
        return {
          piece,
          atStart: match.index === 0,
          atCut: end === this.segment.length && this.segmentEnd < this.text.length,
        };
      }
      if (this.segmentEnd >= this.text.length) return null;
      this.startSegment(this.segmentEnd);
    }
  }

  /** Counts the next piece (or starts on a long one); the bytes handled. */
  private countNextPiece(): number {
    const next = this.nextMatch();
    if (next === null) {
      this.finished = true;
      return 0;
    }
    const bytes = utf8Bytes(next.piece);
    if (next.atCut || bytes.length > merger().capacity) {
      this.longPiece = { bytes, offset: 0, open: next.atCut };
      return 0;
    }
    this.counted += merger().count(bytes, 0, bytes.length, this.meter);
    return bytes.length;
  }

  /** Counts one window of the long piece (or takes in its continuation past a cut); the bytes handled. */
  private countWindow(long: LongPiece): number {
    const remaining = long.bytes.length - long.offset;
    if (remaining <= merger().capacity) {
      if (long.open) return this.continueLongPiece(long);
      this.counted += merger().count(long.bytes, long.offset, long.bytes.length, this.meter);
      this.longPiece = undefined;
      return remaining;
    }
    const end = long.offset + merger().capacity;
    const window = long.bytes.slice(long.offset, end);
    if (lastWindow?.bytes === window) {
      if (this.meter !== undefined) this.meter.steps += window.length;
    } else {
      const settled = merger().countWindow(window, 0, window.length, MERGE_WINDOW_BYTES, this.meter);
      lastWindow = { bytes: window, ...settled };
    }
    this.counted += lastWindow.tokens;
    long.offset += lastWindow.boundary;
    return merger().capacity;
  }

  /** The piece goes on in the next segment, whose first match is its continuation. */
  private continueLongPiece(long: LongPiece): number {
    const next = this.nextMatch();
    if (next === null || !next.atStart)
      throw new Error('o200k: a piece cut for the pattern did not continue');
    const bytes = utf8Bytes(next.piece);
    long.bytes = long.bytes.slice(long.offset) + bytes;
    long.offset = 0;
    long.open = next.atCut;
    return bytes.length;
  }
}

/** Tokens of `text` under o200k_base, counted at once. Special-token markers are ordinary text. */
export function countO200kTokens(text: string, meter?: MergeMeter): number {
  const count = new O200kTextCount(text, meter);
  count.advance(() => false);
  return count.tokens;
}
