// The default TokenCounter (DESIGN.md decision 10): OpenAI's o200k_base encoding, with the ranks
// bundled in js-tiktoken (no network) and Strata's own linear merge (o200k-text-count.ts), at
// once for the CLI and the domain, or in slices that share the event loop for the engine. The
// vocabulary is loaded on first use, since that takes a noticeable fraction of a second.
import type { TokenCounter } from '@strata/session';
import type { CountingSlices } from './counting-slices';
import { O200kTextCount, countO200kTokens } from './o200k-text-count';
import type { SlicedTextCounting } from './prepared-token-counter';

export { countO200kTokens } from './o200k-text-count';

/** Tokens charged for one image block (the reference's 4,800 characters at chars/4). */
export const IMAGE_TOKEN_COST = 1200;

export const o200kTokenCounter: TokenCounter = {
  name: 'o200k',
  countPieces(pieces, imageCount) {
    let tokens = imageCount * IMAGE_TOKEN_COST;
    for (const piece of pieces) tokens += countO200kTokens(piece);
    return tokens;
  },
};

/** Tokens of `text` under o200k_base, counted in slices: the event loop gets a turn between them. */
export async function countO200kTokensInSlices(text: string, slices: CountingSlices): Promise<number> {
  const count = new O200kTextCount(text);
  while (!count.advance(() => slices.due())) await slices.yield();
  return count.tokens;
}

export const o200kSlicedCounting: SlicedTextCounting = {
  name: 'o200k',
  imageTokens: IMAGE_TOKEN_COST,
  countNow: countO200kTokens,
  countInSlices: countO200kTokensInSlices,
};
