// Picks a TokenCounter by its stable name: `o200k` (the default, o200k_base) or `chars4` (the
// reference heuristic, for comparisons with upstream figures). The CLI takes the plain counter;
// the engine the prepared one, which counts long texts ahead in slices (prepared-token-counter.ts).
import { charsPerFourCounter, type TokenCounter } from '@strata/session';
import { o200kSlicedCounting, o200kTokenCounter } from './o200k-token-counter';
import {
  PreparedCounter,
  alwaysReady,
  type PreparedCounterOptions,
  type PreparedTokenCounter,
  type SlicedTextCounting,
} from './prepared-token-counter';

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

export function createPreparedTokenCounter(
  name: TokenCounterName = 'o200k',
  options: PreparedCounterOptions = {},
): PreparedTokenCounter {
  switch (name) {
    case 'o200k':
      return new PreparedCounter(o200kSlicedCounting, options);
    case 'chars4':
      return alwaysReady(charsPerFourCounter);
    default: {
      const unreachable: never = name;
      throw new Error(`unknown token counter ${String(unreachable)}`);
    }
  }
}

/**
 * The counting a prepared counter of this name does for long texts (to count them on a worker
 * thread the same way: `countLongTexts`); undefined for a counter that is always quick.
 */
export function slicedCountingOf(name: TokenCounterName): SlicedTextCounting | undefined {
  return name === 'o200k' ? o200kSlicedCounting : undefined;
}

export function isTokenCounterName(value: string): value is TokenCounterName {
  return (tokenCounterNames as readonly string[]).includes(value);
}
