// Positions in the log where null stands for "before the first event" (nothing seen, or a
// checkpoint at the start): the comparisons the runner and its slots make between them, and the
// position of the store's head.
import type { EventFilter, EventStore } from '@strata/event-store';

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

/** The position of the last event in the store (of the filter's, when one is given); null when none. */
export async function headPosition(
  store: EventStore,
  filter: EventFilter | undefined,
): Promise<bigint | null> {
  for await (const event of store.readAll({
    direction: 'backwards',
    fromPosition: 'end',
    maxCount: 1,
    ...(filter !== undefined ? { filter } : {}),
  })) {
    return event.position;
  }
  return null;
}
