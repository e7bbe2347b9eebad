import fc from 'fast-check';
import type { Usage } from './messages';
import {
  addUsage,
  boundedFigure,
  boundedUsage,
  boundedUsageSchema,
  isBoundedUsage,
  MAX_COST_FIGURE,
  MAX_RUNNING_TOTAL,
  MAX_TOKEN_FIGURE,
  saturatingAdd,
  sumOfTokenFigures,
} from './usage-bounds';

const anyNumber = fc.oneof(
  fc.double(),
  fc.constantFrom(1e308, -1e308, Number.MAX_VALUE, -Number.MAX_VALUE, Infinity, -Infinity, NaN, -0),
);

describe('usage bounds', () => {
  it('accepts the figures of real answers, and the bounds themselves', () => {
    const usage: Usage = {
      input: 6120,
      output: 88,
      cacheRead: 0,
      cacheWrite: 6100,
      totalTokens: 12308,
      cost: { input: 0.018, output: 0.001, cacheRead: 0, cacheWrite: 0.023, total: 0.042 },
    };
    expect(isBoundedUsage(usage)).toBe(true);
    expect(
      isBoundedUsage({
        input: MAX_TOKEN_FIGURE,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        cost: { total: MAX_COST_FIGURE },
      }),
    ).toBe(true);
  });

  it.each([
    ['a huge input', { input: 1e308, output: 0, cacheRead: 0, cacheWrite: 0 }, 'input'],
    ['a negative output', { input: 0, output: -1, cacheRead: 0, cacheWrite: 0 }, 'output'],
    ['one token over', { input: 0, output: 0, cacheRead: MAX_TOKEN_FIGURE + 1, cacheWrite: 0 }, 'cacheRead'],
    ['a huge total', { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 1e12 }, 'totalTokens'],
    [
      'a huge cost',
      { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: { total: 1e308 } },
      'cost.total',
    ],
    [
      'a negative cost',
      { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: { output: -0.01 } },
      'cost.output',
    ],
  ])('refuses %s, naming the figure', (_what, usage, path) => {
    const result = boundedUsageSchema.safeParse(usage);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([path]);
  });

  it('brings any number into [0, max], and anything else to 0', () => {
    fc.assert(
      fc.property(anyNumber, (value) => {
        const bounded = boundedFigure(value, MAX_TOKEN_FIGURE);
        expect(Number.isFinite(bounded)).toBe(true);
        expect(bounded).toBeGreaterThanOrEqual(0);
        expect(bounded).toBeLessThanOrEqual(MAX_TOKEN_FIGURE);
        if (Number.isFinite(value) && value >= 0 && value <= MAX_TOKEN_FIGURE)
          expect(bounded - value).toBe(0);
      }),
    );
    expect(boundedFigure('12', MAX_TOKEN_FIGURE)).toBe(0);
    expect(boundedFigure(undefined, MAX_TOKEN_FIGURE)).toBe(0);
  });

  it('keeps a bounded usage as it is, and bounds every figure of any other', () => {
    fc.assert(
      fc.property(
        fc.record({
          input: anyNumber,
          output: anyNumber,
          cacheRead: anyNumber,
          cacheWrite: anyNumber,
          totalTokens: anyNumber,
        }),
        fc.record({ total: anyNumber, input: anyNumber }),
        (figures, cost) => {
          const bounded = boundedUsage({ ...figures, cost });
          expect(isBoundedUsage(bounded)).toBe(true);
        },
      ),
    );
    const real: Usage = {
      input: 1,
      output: 2,
      cacheRead: 3,
      cacheWrite: 4,
      cost: { total: 0.5 },
      extra: 'kept',
    };
    expect(boundedUsage(real)).toEqual(real);
  });

  it('agrees with its schema on any record (the fast check the decider runs)', () => {
    const figure = fc.oneof(
      anyNumber,
      fc.constantFrom(0, 1, MAX_TOKEN_FIGURE, MAX_COST_FIGURE, MAX_COST_FIGURE + 1),
    );
    fc.assert(
      fc.property(
        fc.record(
          { input: figure, output: figure, cacheRead: figure, cacheWrite: figure, totalTokens: figure },
          { requiredKeys: ['input', 'output', 'cacheRead', 'cacheWrite'] },
        ),
        fc.option(fc.record({ total: figure, input: figure }, { requiredKeys: [] }), { nil: undefined }),
        (figures, cost) => {
          const usage = { ...figures, ...(cost !== undefined ? { cost } : {}) } as Usage;
          expect(isBoundedUsage(usage)).toBe(boundedUsageSchema.safeParse(usage).success);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('adds running sums exactly below 2^53 - 1 and saturates there, never reaching Infinity', () => {
    expect(saturatingAdd(2, 3)).toBe(5);
    expect(saturatingAdd(MAX_RUNNING_TOTAL - 1, MAX_TOKEN_FIGURE)).toBe(MAX_RUNNING_TOTAL);
    fc.assert(
      fc.property(fc.array(anyNumber, { maxLength: 50 }), (figures) => {
        const total = figures.reduce((sum, figure) => saturatingAdd(sum, figure), 0);
        expect(Number.isFinite(total)).toBe(true);
        expect(total).toBeGreaterThanOrEqual(0);
        expect(total).toBeLessThanOrEqual(MAX_RUNNING_TOTAL);
      }),
    );
    let total = 0;
    for (let step = 0; step < 10_000; step += 1) total = saturatingAdd(total, 1e308);
    expect(total).toBe(MAX_RUNNING_TOTAL);
  });

  it('sums the token figures of one record up to one figure bound', () => {
    expect(sumOfTokenFigures([1, 2, 3])).toBe(6);
    expect(sumOfTokenFigures([MAX_TOKEN_FIGURE, MAX_TOKEN_FIGURE])).toBe(MAX_TOKEN_FIGURE);
    expect(sumOfTokenFigures([-5, Infinity, NaN])).toBe(0);
  });

  it('adds usage records and ignores missing ones', () => {
    const one = { input: 10, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 12 };
    expect(addUsage([one, undefined, one])).toEqual({
      input: 20,
      output: 4,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 24,
    });
    expect(addUsage([undefined])).toBeUndefined();
  });
});
