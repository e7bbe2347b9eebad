// The default TokenCounter (DESIGN.md decision 10): OpenAI's o200k_base encoding, with the ranks
// bundled in js-tiktoken (no network) and Strata's own linear merge (o200k-text-count.ts). The
// vocabulary is loaded on first use, since that takes a noticeable fraction of a second.
import type { TokenCounter } from '@strata/session';
import { countO200kTokens } from './o200k-text-count';

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
