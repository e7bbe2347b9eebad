import * as fc from 'fast-check';
import { generatedSessionArbitrary } from '@strata/testing';
import type { SessionEntry } from '../entries/entries';
import { MAX_TOKEN_FIGURE } from '../entries/usage-bounds';
import { pathToEntry } from '../tree/session-tree';
import {
  calculateContextTokens,
  calculatePromptTokens,
  findFreshAssistantUsage,
  isAboveThreshold,
  latestCompactionIndex,
  type FreshUsage,
} from './context-usage';

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

/** The rule of `findFreshAssistantUsage` as written in words, over the path cut at `end`. */
function freshUsageByTheRule(path: readonly SessionEntry[], end: number): FreshUsage | undefined {
  const before = path.slice(0, end);
  for (let index = before.length - 1; index > latestCompactionIndex(before); index -= 1) {
    const entry = before[index];
    if (entry?.type !== 'message' || entry.message.role !== 'assistant') continue;
    const { message } = entry;
    if (message.stopReason === 'aborted' || message.stopReason === 'error') continue;
    if (message.usage === undefined || calculateContextTokens(message.usage) === 0) continue;
    return { usage: message.usage, entryIndex: index, message };
  }
  return undefined;
}

describe('the fresh usage of a path (the measurement of a check point)', () => {
  it('is the newest answer with usage after the latest compaction, on any cut of a generated path', () => {
    fc.assert(
      fc.property(
        generatedSessionArbitrary({ maxEntries: 60, compactions: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (generated, endFraction) => {
          const byId = new Map(generated.entries.map((entry) => [entry.id, entry]));
          const path = generated.leafId === null ? [] : pathToEntry(byId, generated.leafId);
          const end = Math.round(endFraction * path.length);
          expect(findFreshAssistantUsage(path, end)).toEqual(freshUsageByTheRule(path, end));
          expect(findFreshAssistantUsage(path)).toEqual(freshUsageByTheRule(path, path.length));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds some measurements and some compactions in the generated paths it is checked on', () => {
    let measured = 0;
    let stoppedAtCompaction = 0;
    fc.assert(
      fc.property(generatedSessionArbitrary({ maxEntries: 60, compactions: true }), (generated) => {
        const byId = new Map(generated.entries.map((entry) => [entry.id, entry]));
        const path = generated.leafId === null ? [] : pathToEntry(byId, generated.leafId);
        if (findFreshAssistantUsage(path) !== undefined) measured += 1;
        else if (latestCompactionIndex(path) >= 0) stoppedAtCompaction += 1;
      }),
      { numRuns: 300, seed: 22 },
    );
    expect(measured).toBeGreaterThan(0);
    expect(stoppedAtCompaction).toBeGreaterThan(0);
  });
});
