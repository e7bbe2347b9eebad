// Appends larger than an EventStoreDB node takes at once (its MaxAppendSize, 1 MiB by default),
// cut into parts that each fit (AppendOptions.splitWhenTooLarge). A node counts an append as the
// bytes of its events' data and metadata, plus a little per event (its type): each event is
// weighed a little over that, and parts are filled to nine tenths of the bound, so that what the
// node counts stays under it. An event heavier than that share goes in a part of its own.
import type { JSONEventData } from '@eventstore/db-client';
import { AppendTooLargeError, type AppendResult, type ExpectedRevision } from '../port';

/** Bytes counted for each event beyond its data, metadata and type. */
const EVENT_OVERHEAD_BYTES = 64;
/** Parts are filled to this share of the node's bound. */
const FILL_RATIO = 0.9;

/** About the bytes the node counts for one event of an append (never less than it counts). */
export function appendBytesOf(event: JSONEventData): number {
  const data = Buffer.byteLength(JSON.stringify(event.data));
  const metadata = event.metadata === undefined ? 0 : Buffer.byteLength(JSON.stringify(event.metadata));
  return data + metadata + 2 * Buffer.byteLength(event.type) + EVENT_OVERHEAD_BYTES;
}

/**
 * The events in consecutive parts of at most nine tenths of `maxAppendBytes` each (or one event
 * alone), in order, or the index of the first event heavier than `maxAppendBytes` by itself.
 */
export function appendParts(
  events: readonly JSONEventData[],
  maxAppendBytes: number,
): { readonly parts: JSONEventData[][] } | { readonly tooLarge: number } {
  const budget = Math.floor(maxAppendBytes * FILL_RATIO);
  const parts: JSONEventData[][] = [];
  let part: JSONEventData[] = [];
  let partBytes = 0;
  for (const [index, event] of events.entries()) {
    const bytes = appendBytesOf(event);
    if (bytes > maxAppendBytes) return { tooLarge: index };
    if (partBytes + bytes > budget && part.length > 0) {
      parts.push(part);
      part = [];
      partBytes = 0;
    }
    part.push(event);
    partBytes += bytes;
  }
  if (part.length > 0) parts.push(part);
  return { parts };
}

/**
 * Appends `proposed` in parts that fit `maxAppendBytes`, each at the revision the previous one
 * left (the first at `expected`), through `appendOnce`; answers the last part's result. Refuses
 * them with `AppendTooLargeError` and nothing written when one event is too large by itself.
 */
export async function appendInParts(
  streamId: string,
  proposed: readonly JSONEventData[],
  maxAppendBytes: number,
  expected: ExpectedRevision,
  appendOnce: (part: readonly JSONEventData[], expected: ExpectedRevision) => Promise<AppendResult>,
): Promise<AppendResult> {
  const split = appendParts(proposed, maxAppendBytes);
  if ('tooLarge' in split) throw new AppendTooLargeError(streamId, maxAppendBytes);
  let expectation = expected;
  let result: AppendResult | undefined;
  for (const part of split.parts) {
    result = await appendOnce(part, expectation);
    expectation = result.nextExpectedRevision;
  }
  if (result === undefined) throw new Error(`no part to append to ${streamId}`);
  return result;
}
