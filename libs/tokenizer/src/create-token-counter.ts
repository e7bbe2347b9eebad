// Picks a TokenCounter by its stable name: `o200k` (the default, js-tiktoken) or `chars4`
// (the reference heuristic, for comparisons with upstream figures).
import { charsPerFourCounter, type TokenCounter } from '@strata/session';
import { o200kTokenCounter } from './o200k-token-counter';

export const tokenCounterNames = ['o200k', 'chars4'] as const;
export type TokenCounterName = (typeof tokenCounterNames)[number];

export function createTokenCounter(name: TokenCounterName = 'o200k'): TokenCounter {
  switch (name) {
    case 'o200k':
      return o200kTokenCounter;
    case 'chars4':
      return charsPerFourCounter;
    default: {
      const unreachable: never = name;
      throw new Error(`unknown token counter ${String(unreachable)}`);
    }
  }
}

export function isTokenCounterName(value: string): value is TokenCounterName {
  return (tokenCounterNames as readonly string[]).includes(value);
}
