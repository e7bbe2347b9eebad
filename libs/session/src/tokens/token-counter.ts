// The TokenCounter port (DESIGN.md decision 10) and the reference chars/4 heuristic.
// Message estimation lives here; counters only turn text pieces into a number.

/** Counts the tokens of one message given as its text pieces and its number of images. */
export interface TokenCounter {
  /** A stable name, recorded with figures that depend on it (`chars4`, `o200k`). */
  readonly name: string;
  countPieces(pieces: readonly string[], imageCount: number): number;
}

/** Characters the reference charges for one image block (≈1,200 tokens at chars/4). */
export const IMAGE_CHARACTER_COST = 4800;

/** The reference heuristic: ceil(total characters / 4), images at 4,800 characters. */
export const charsPerFourCounter: TokenCounter = {
  name: 'chars4',
  countPieces(pieces, imageCount) {
    let characters = imageCount * IMAGE_CHARACTER_COST;
    for (const piece of pieces) characters += piece.length;
    return Math.ceil(characters / 4);
  },
};

/** Tokens of a plain text with the given counter (no images). */
export function countTextTokens(counter: TokenCounter, text: string): number {
  return counter.countPieces([text], 0);
}
