// Bounds of the usage and cost figures a client, a session file or a summariser reports, and
// the arithmetic the read models do with them. Input outside the bounds is refused; figures
// already recorded outside them (before the bounds existed) are brought into them where they
// are read, and running sums saturate, so no sum, total or estimate can become Infinity or NaN.
//
// The bounds are far above any real model: one answer's token figure at most 10^9 (a hundred
// times the largest context window offered today), one cost figure at most 10^6 (dollars, or
// whatever currency the client counts in). Sums stay exact (for whole figures) up to 2^53 - 1,
// where they stop growing.
import { z } from 'zod';
import type { Usage } from './messages';

export const MAX_TOKEN_FIGURE = 1_000_000_000;
export const MAX_COST_FIGURE = 1_000_000;
export const MAX_RUNNING_TOTAL = Number.MAX_SAFE_INTEGER;

export const tokenFigureSchema = z
  .number()
  .nonnegative('must not be negative')
  .max(MAX_TOKEN_FIGURE, `must be at most ${MAX_TOKEN_FIGURE} tokens`);
export const costFigureSchema = z
  .number()
  .nonnegative('must not be negative')
  .max(MAX_COST_FIGURE, `must be at most ${MAX_COST_FIGURE}`);

/** A usage record as a client or a file may report it: every figure finite, non-negative, bounded. */
export const boundedUsageSchema = z.looseObject({
  input: tokenFigureSchema,
  output: tokenFigureSchema,
  cacheRead: tokenFigureSchema,
  cacheWrite: tokenFigureSchema,
  totalTokens: tokenFigureSchema.optional(),
  cost: z
    .looseObject({
      input: costFigureSchema.optional(),
      output: costFigureSchema.optional(),
      cacheRead: costFigureSchema.optional(),
      cacheWrite: costFigureSchema.optional(),
      total: costFigureSchema.optional(),
    })
    .optional(),
});

/** `value` brought into [0, max]; anything but a finite number counts as 0. */
export function boundedFigure(value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return 0;
  return value > max ? max : value;
}

/** `total + figure` for running sums: both brought into bounds first, saturating at 2^53 - 1. */
export function saturatingAdd(total: number, figure: number): number {
  const sum = boundedFigure(total, MAX_RUNNING_TOTAL) + boundedFigure(figure, MAX_RUNNING_TOTAL);
  return sum > MAX_RUNNING_TOTAL ? MAX_RUNNING_TOTAL : sum;
}

/** The sum of token figures, saturating at one figure's bound (for a record made of several). */
export function sumOfTokenFigures(figures: readonly number[]): number {
  const sum = figures.reduce((total, figure) => saturatingAdd(total, figure), 0);
  return sum > MAX_TOKEN_FIGURE ? MAX_TOKEN_FIGURE : sum;
}

function boundedCost(cost: NonNullable<Usage['cost']>): NonNullable<Usage['cost']> {
  const bounded = { ...cost };
  for (const key of ['input', 'output', 'cacheRead', 'cacheWrite', 'total'] as const) {
    if (cost[key] !== undefined) bounded[key] = boundedFigure(cost[key], MAX_COST_FIGURE);
  }
  return bounded;
}

/** A recorded usage with every figure brought into its bounds (other fields kept). */
export function boundedUsage(usage: Usage): Usage {
  return {
    ...usage,
    input: boundedFigure(usage.input, MAX_TOKEN_FIGURE),
    output: boundedFigure(usage.output, MAX_TOKEN_FIGURE),
    cacheRead: boundedFigure(usage.cacheRead, MAX_TOKEN_FIGURE),
    cacheWrite: boundedFigure(usage.cacheWrite, MAX_TOKEN_FIGURE),
    ...(usage.totalTokens !== undefined
      ? { totalTokens: boundedFigure(usage.totalTokens, MAX_TOKEN_FIGURE) }
      : {}),
    ...(usage.cost !== undefined ? { cost: boundedCost(usage.cost) } : {}),
  };
}

function withinBounds(value: unknown, max: number): boolean {
  return value === undefined || (typeof value === 'number' && value >= 0 && value <= max);
}

/** Whether every figure of `usage` is within its bounds (what the decider requires of new records). */
export function isBoundedUsage(usage: Usage): boolean {
  const { cost } = usage;
  return (
    typeof usage.input === 'number' &&
    typeof usage.output === 'number' &&
    typeof usage.cacheRead === 'number' &&
    typeof usage.cacheWrite === 'number' &&
    [usage.input, usage.output, usage.cacheRead, usage.cacheWrite, usage.totalTokens].every((figure) =>
      withinBounds(figure, MAX_TOKEN_FIGURE),
    ) &&
    (cost === undefined ||
      [cost.input, cost.output, cost.cacheRead, cost.cacheWrite, cost.total].every((figure) =>
        withinBounds(figure, MAX_COST_FIGURE),
      ))
  );
}

/** The sum of several usage records (saturating at a figure's bound); undefined when none was reported. */
export function addUsage(records: readonly (Usage | undefined)[]): Usage | undefined {
  const reported = records.filter((record): record is Usage => record !== undefined);
  if (reported.length === 0) return undefined;
  const sum = (pick: (usage: Usage) => number): number => sumOfTokenFigures(reported.map(pick));
  return {
    input: sum((usage) => usage.input),
    output: sum((usage) => usage.output),
    cacheRead: sum((usage) => usage.cacheRead),
    cacheWrite: sum((usage) => usage.cacheWrite),
    totalTokens: sum((usage) => usage.totalTokens ?? usage.input + usage.output),
  };
}
