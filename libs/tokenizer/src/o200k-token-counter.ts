// The default TokenCounter (DESIGN.md decision 10): OpenAI's o200k_base encoding through
// js-tiktoken, with the ranks bundled in the package (no network). The encoder is built on
// first use and shared, since loading the ranks takes a noticeable fraction of a second.
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import type { TokenCounter } from '@strata/session';

/** Tokens charged for one image block (the reference's 4,800 characters at chars/4). */
export const IMAGE_TOKEN_COST = 1200;

let sharedEncoder: Tiktoken | undefined;

function encoder(): Tiktoken {
  sharedEncoder ??= new Tiktoken(o200kBase);
  return sharedEncoder;
}

/** Tokens of one text under o200k_base; special-token markers count as ordinary text. */
export function countO200kTokens(text: string): number {
  if (text.length === 0) return 0;
  return encoder().encode(text, [], []).length;
}

export const o200kTokenCounter: TokenCounter = {
  name: 'o200k',
  countPieces(pieces, imageCount) {
    let tokens = imageCount * IMAGE_TOKEN_COST;
    for (const piece of pieces) tokens += countO200kTokens(piece);
    return tokens;
  },
};
