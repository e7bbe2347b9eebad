// Order statistics of timing samples: the figures every benchmark case reports.

export interface TimingSummary {
  readonly iterations: number;
  readonly medianMs: number;
  readonly p10Ms: number;
  readonly p90Ms: number;
  /** Only meaningful with many samples (the HTTP suite); with a handful it is close to the maximum. */
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly minMs: number;
  readonly maxMs: number;
}

/** The value at `fraction` (0..1) of an ascending list, interpolated linearly between ranks. */
export function percentile(ascending: readonly number[], fraction: number): number {
  if (ascending.length === 0) return Number.NaN;
  const rank = (ascending.length - 1) * Math.min(1, Math.max(0, fraction));
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  const lowerValue = ascending[lower] as number;
  const upperValue = ascending[upper] as number;
  return lowerValue + (upperValue - lowerValue) * (rank - lower);
}

/** Summary of durations measured in nanoseconds, reported in milliseconds. */
export function summariseDurations(durationsNs: readonly bigint[]): TimingSummary {
  const milliseconds = durationsNs.map((duration) => Number(duration) / 1e6).sort((a, b) => a - b);
  const total = milliseconds.reduce((sum, value) => sum + value, 0);
  return {
    iterations: milliseconds.length,
    medianMs: percentile(milliseconds, 0.5),
    p10Ms: percentile(milliseconds, 0.1),
    p90Ms: percentile(milliseconds, 0.9),
    p99Ms: percentile(milliseconds, 0.99),
    meanMs: milliseconds.length === 0 ? Number.NaN : total / milliseconds.length,
    minMs: milliseconds[0] ?? Number.NaN,
    maxMs: milliseconds[milliseconds.length - 1] ?? Number.NaN,
  };
}

/** Operations per second when one iteration of `medianMs` performs `operations` operations. */
export function operationsPerSecond(operations: number, milliseconds: number): number {
  return milliseconds > 0 ? (operations * 1000) / milliseconds : Number.POSITIVE_INFINITY;
}
