import { MAX_TOKEN_FIGURE } from '../entries/usage-bounds';
import { calculateContextTokens, calculatePromptTokens, isAboveThreshold } from './context-usage';

describe('context tokens from a usage record', () => {
  it('takes totalTokens when set, else the sum of the parts', () => {
    expect(
      calculateContextTokens({ input: 10, output: 2, cacheRead: 3, cacheWrite: 1, totalTokens: 20 }),
    ).toBe(20);
    expect(calculateContextTokens({ input: 10, output: 2, cacheRead: 3, cacheWrite: 1 })).toBe(16);
    expect(calculatePromptTokens({ input: 10, output: 2, cacheRead: 3, cacheWrite: 1 })).toBe(14);
  });

  it('stays within one figure bound over figures recorded out of bounds, never negative or infinite', () => {
    const huge = { input: 1e308, output: 1e308, cacheRead: 1e308, cacheWrite: 1e308 };
    expect(calculateContextTokens(huge)).toBe(MAX_TOKEN_FIGURE);
    expect(calculatePromptTokens(huge)).toBe(MAX_TOKEN_FIGURE);
    expect(calculateContextTokens({ ...huge, totalTokens: 1e308 })).toBe(MAX_TOKEN_FIGURE);
    const negative = { input: -1e308, output: -1, cacheRead: 0, cacheWrite: 0, totalTokens: -5 };
    expect(calculateContextTokens(negative)).toBe(0);
    expect(calculatePromptTokens(negative)).toBe(0);
  });
});

describe('the compaction threshold (reference §3.2)', () => {
  describe('given a 200k window with a 16,384-token reserve', () => {
    const [window, reserve] = [200_000, 16_384];

    it('when the context is one token over window − reserve, then it calls for compaction', () => {
      expect(isAboveThreshold(window - reserve + 1, window, reserve)).toBe(true);
    });

    it('when the context is exactly window − reserve, then it does not (strictly greater)', () => {
      expect(isAboveThreshold(window - reserve, window, reserve)).toBe(false);
    });
  });

  describe('given a reserve larger than the window', () => {
    it('when any context is measured, even an empty one, then it calls for compaction', () => {
      expect(isAboveThreshold(0, 8_000, 16_384)).toBe(true);
    });
  });
});
