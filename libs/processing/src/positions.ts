// Positions in the log where null stands for "before the first event" (nothing seen, or a
// checkpoint at the start): the comparisons the runner and its slots make between them.

/** Whether `position` comes after `reference` (everything comes after null). */
export function isAfter(position: bigint, reference: bigint | null): boolean {
  return reference === null || position > reference;
}

/** The lowest of the positions; null when any is null (or there are none). */
export function lowest(positions: readonly (bigint | null)[]): bigint | null {
  let result: bigint | null | undefined;
  for (const position of positions) {
    if (position === null) return null;
    if (result === undefined || result === null || position < result) result = position;
  }
  return result ?? null;
}
