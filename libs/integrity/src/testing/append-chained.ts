// TEST SUPPORT. Appending sealed events as a writer that has not read the stream: the stream's
// last event is read and the append expects exactly that revision. Callers who asked for 'any'
// (or 'stream_exists') get a bounded retry on conflict; exact expectations do not. Only tests
// write this way (the engine's writes go through the command handler's sealing appender).
import {
  ConcurrencyError,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type RecordedEvent,
} from '@strata/event-store';
import { sealEventsOffLoop, type AuditContext } from '../hash-chain/event-seal';

export interface ChainedAppendOptions {
  readonly context?: AuditContext;
  /** `'any'` by default. */
  readonly expectedRevision?: ExpectedRevision;
  /** Attempts for 'any' / 'stream_exists' before the conflict is reported. 5 by default. */
  readonly maxAttempts?: number;
}

async function lastEvents(store: EventStore, streamId: string, count: number): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(streamId, {
    direction: 'backwards',
    maxCount: Math.max(count, 1),
  })) {
    events.push(event);
  }
  return events;
}

/** When the stream already ends with exactly this batch, the result of that earlier append. */
function earlierResult(
  tail: readonly RecordedEvent[],
  events: readonly EventToAppend[],
): AppendResult | undefined {
  if (events.length === 0 || tail.length < events.length) return undefined;
  const recorded = tail.slice(0, events.length).reverse();
  if (!recorded.every((event, index) => event.id === events[index]?.id)) return undefined;
  const last = recorded[recorded.length - 1]!;
  return { nextExpectedRevision: last.revision, position: last.position };
}

/**
 * Seals `events` onto the end of `streamId`'s hash chain and appends them. Re-running the same
 * append right after it succeeded returns the earlier result. Throws ConcurrencyError when an
 * exact expectation fails or every attempt met a conflicting writer.
 */
export async function appendChained(
  store: EventStore,
  streamId: string,
  events: readonly EventToAppend[],
  options: ChainedAppendOptions = {},
): Promise<AppendResult> {
  const expected = options.expectedRevision ?? 'any';
  const retries = expected === 'any' || expected === 'stream_exists';
  const maxAttempts = retries ? (options.maxAttempts ?? 5) : 1;
  for (let attempt = 1; ; attempt += 1) {
    const tail = await lastEvents(store, streamId, events.length);
    const repeated = earlierResult(tail, events);
    if (repeated !== undefined) return repeated;
    const lastEvent = tail[0];
    const actual = lastEvent?.revision ?? null;
    const holds =
      expected === 'any' ||
      (expected === 'no_stream' && actual === null) ||
      (expected === 'stream_exists' && actual !== null) ||
      expected === actual;
    if (!holds) throw new ConcurrencyError(streamId, expected, actual);
    try {
      const sealed = await sealEventsOffLoop(streamId, events, lastEvent, options.context);
      return await store.appendToStream(streamId, sealed, { expectedRevision: actual ?? 'no_stream' });
    } catch (error) {
      if (!(error instanceof ConcurrencyError) || attempt >= maxAttempts) throw error;
    }
  }
}
