// Counting one text with o200k_base, in steps that can stop and resume. The text is cut into
// pieces by the encoding's pattern, each piece is encoded as UTF-8 and merged (byte-pair-merge.ts).
// A piece of up to MERGE_WINDOW_BYTES + WINDOW_LOOKAHEAD_BYTES is merged whole, exactly. A longer
// one (a run of one character, a line of base64, a paragraph of Chinese) is merged window by
// window: each window reaches WINDOW_LOOKAHEAD_BYTES past MERGE_WINDOW_BYTES, the tokens ending
// by MERGE_WINDOW_BYTES are kept, and the next window starts where the last of them ends. So the
// work is linear in the text's length whatever it holds. The count equals exact o200k whenever
// the merge of what lies beyond a window cannot change the tokens a lookahead's length before its
// end: that held in every case measured (bench tokenizer suite, docs/compatibility.md). A window
// that repeats the last one (as in a run of one character) reuses its result.
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

export class O200kTextCount {
  private counted = 0;
  private finished: boolean;
  private readonly splitter: RegExp;
  /** A piece longer than one merge, being counted window by window. */
  private longPiece: { readonly bytes: string; offset: number } | undefined;

  constructor(
    private readonly text: string,
    private readonly meter?: MergeMeter,
  ) {
    this.splitter = new RegExp(o200kVocabulary().pattern, 'gu');
    this.finished = text.length === 0;
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

  /** Counts the next piece (or starts on a long one); the bytes handled. */
  private countNextPiece(): number {
    const match = this.splitter.exec(this.text);
    if (match === null) {
      this.finished = true;
      return 0;
    }
    const piece = match[0];
    if (piece.length === 0) {
      this.splitter.lastIndex += 1;
      return 0;
    }
    const bytes = utf8Bytes(piece);
    if (bytes.length > merger().capacity) {
      this.longPiece = { bytes, offset: 0 };
      return 0;
    }
    this.counted += merger().count(bytes, 0, bytes.length, this.meter);
    return bytes.length;
  }

  /** Counts one window of the long piece; the bytes merged. */
  private countWindow(long: { readonly bytes: string; offset: number }): number {
    const remaining = long.bytes.length - long.offset;
    if (remaining <= merger().capacity) {
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
}

/** Tokens of `text` under o200k_base, counted at once. Special-token markers are ordinary text. */
export function countO200kTokens(text: string, meter?: MergeMeter): number {
  const count = new O200kTextCount(text, meter);
  count.advance(() => false);
  return count.tokens;
}
