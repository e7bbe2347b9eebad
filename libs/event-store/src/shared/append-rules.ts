// Rules every adapter applies the same way when appending: whether an expected revision holds,
// and whether a batch whose first id is already recorded is an idempotent retry.
import { ConcurrencyError, DuplicateEventIdError, type AppendResult, type ExpectedRevision } from '../port';

/** True when a stream whose last revision is `actual` (null = no stream) satisfies `expected`. */
export function expectationHolds(expected: ExpectedRevision, actual: bigint | null): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === null;
  if (expected === 'stream_exists') return actual !== null;
  return actual === expected;
}

/** Throws the ConcurrencyError for an expectation that does not hold. */
export function assertExpectation(streamId: string, expected: ExpectedRevision, actual: bigint | null): void {
  if (!expectationHolds(expected, actual)) throw new ConcurrencyError(streamId, expected, actual);
}

/**
 * The time an event is recorded at: the one it was appended with (which must be an ISO 8601 UTC
 * time as `Date.toISOString` writes it, so that every adapter stores and reports it unchanged),
 * else `storeTime`.
 */
export function recordedTimeOf(
  event: { readonly id: string; readonly createdAt?: string },
  storeTime: string,
): string {
  const given = event.createdAt;
  if (given === undefined) return storeTime;
  const parsed = typeof given === 'string' ? Date.parse(given) : Number.NaN;
  if (Number.isNaN(parsed) || new Date(parsed).toISOString() !== given) {
    throw new TypeError(
      `createdAt of event ${event.id} must be an ISO 8601 UTC time such as 2026-12-06T08:00:00.000Z, not ${JSON.stringify(given)}`,
    );
  }
  return given;
}

/** Where an already recorded event of the batch lives. */
export interface RecordedLocation {
  readonly streamId: string;
  readonly id: string;
  readonly revision: bigint;
  readonly position: bigint;
}

/**
 * The batch's first id is already recorded at `first`. `recordedRun` holds the stream's events
 * from `first.revision` on (at most as many as the batch). The append is a retry of the earlier
 * one when the same ids sit there in order and the expectation held before that earlier append:
 * its result is returned again. Otherwise the id was reused: DuplicateEventIdError, or a
 * ConcurrencyError when only the expectation disagrees.
 */
export function resolveRepeatedAppend(
  streamId: string,
  eventIds: readonly string[],
  expected: ExpectedRevision,
  currentRevision: bigint | null,
  first: RecordedLocation,
  recordedRun: readonly RecordedLocation[],
): AppendResult {
  const sameRun =
    first.streamId === streamId &&
    recordedRun.length === eventIds.length &&
    recordedRun.every(
      (recorded, index) =>
        recorded.id === eventIds[index] && recorded.revision === first.revision + BigInt(index),
    );
  const last = recordedRun[recordedRun.length - 1];
  if (!sameRun || last === undefined) throw new DuplicateEventIdError(streamId, first.id);
  const revisionBefore = first.revision === 0n ? null : first.revision - 1n;
  if (!expectationHolds(expected, revisionBefore))
    throw new ConcurrencyError(streamId, expected, currentRevision);
  return { nextExpectedRevision: last.revision, position: last.position };
}

/** Throws DuplicateEventIdError when the batch names one id twice. */
export function assertDistinctIds(streamId: string, eventIds: readonly string[]): void {
  const seen = new Set<string>();
  for (const id of eventIds) {
    if (seen.has(id))
      throw new DuplicateEventIdError(streamId, id, `Event id ${id} appears twice in one append`);
    seen.add(id);
  }
}

/**
 * Whether a revision or position lies in a read's range. `'start'` read forwards and `'end'`
 * read backwards take everything; `'end'` forwards and `'start'` backwards take nothing.
 */
export function inReadRange(value: bigint, from: bigint | 'start' | 'end', backwards: boolean): boolean {
  if (from === 'start') return !backwards;
  if (from === 'end') return backwards;
  return backwards ? value <= from : value >= from;
}

/** Runs synchronous work as a promise: its result resolves, its exception rejects. */
export function settle<Result>(work: () => Result): Promise<Result> {
  return new Promise((resolve) => resolve(work()));
}

/** An async view of a lazily evaluated synchronous iterable (each step runs when asked for). */
export function asyncIterableOf<Item>(createIterable: () => Iterable<Item>): AsyncIterable<Item> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<Item> {
      let iterator: Iterator<Item> | undefined;
      return {
        next: () =>
          settle(() => {
            iterator ??= createIterable()[Symbol.iterator]();
            return iterator.next();
          }),
        return: () =>
          settle(() => {
            iterator?.return?.();
            return { done: true, value: undefined };
          }),
      };
    },
  };
}
