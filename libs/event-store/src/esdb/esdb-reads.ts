// Paged reads of the EventStoreDB adapter. Each page is one client read of at most the page's
// count; the adapter keeps what it receives only up to the page's byte limit and then cancels
// the read, so breaking out of an iteration never leaves a gRPC call open and no page holds more
// than its limits allow. Stream reads are inclusive of their start in both directions on the
// server as in the port. `$all` reads are inclusive forwards but exclusive backwards on the
// server, so a backwards read from a position first fetches the event at that position itself.
// `$all` is filtered on the client (6.2.1 offers no server-side filter for reads), on each event
// as it arrives: events the filter refuses are never kept in a page.
import {
  BACKWARDS,
  END,
  FORWARDS,
  START,
  StreamDeletedError,
  StreamNotFoundError,
  type EventStoreDBClient,
  type Position,
  type ReadPosition,
  type ReadRevision,
  type ResolvedEvent,
  type StreamingRead,
} from '@eventstore/db-client';
import {
  matchesEventFilter,
  type PageLimits,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
} from '../port';
import { PageFill, approximateJsonLength } from '../shared/page-limits';
import {
  isVisibleInAll,
  metadataRecordOf,
  noteErasure,
  toEsdbPosition,
  toRecordedEvent,
} from './esdb-mapping';

export type StreamHead =
  | { readonly kind: 'missing' }
  | { readonly kind: 'erased' }
  | { readonly kind: 'found'; readonly last: RecordedEvent };

/** The size a page counts for an event received through the client (its data and metadata). */
export function resolvedEventBytes(resolved: ResolvedEvent): number {
  const event = resolved.event;
  return event === undefined ? 0 : approximateJsonLength(event.data) + approximateJsonLength(event.metadata);
}

/** What one client read gave: the events kept, the last one received, and whether it was cut. */
interface ReadPage<Kept> {
  readonly kept: Kept[];
  readonly received: number;
  readonly last: ResolvedEvent | undefined;
  /** The page's limits were reached before the server had sent everything it was asked for. */
  readonly cut: boolean;
}

/**
 * Reads one page: every received event is offered to `keep` (undefined drops it). Once the kept
 * events fill `limits` the read is cancelled and what the client still delivers is let go, up to
 * the end of the read: a read left before its end would keep its gRPC call in the client's
 * books (and `dispose()` waits for every call to finish).
 */
async function readPage<Kept>(
  read: StreamingRead<ResolvedEvent>,
  limits: PageLimits,
  keep: (resolved: ResolvedEvent) => Kept | undefined,
): Promise<ReadPage<Kept>> {
  const kept: Kept[] = [];
  const fill = new PageFill(limits);
  let received = 0;
  let last: ResolvedEvent | undefined;
  let cut = false;
  for await (const resolved of read) {
    if (cut) continue;
    received += 1;
    last = resolved;
    const event = keep(resolved);
    if (event === undefined) continue;
    kept.push(event);
    if (fill.add(resolvedEventBytes(resolved))) {
      cut = true;
      void read.cancel();
    }
  }
  return { kept, received, last, cut };
}

/** One page of a stream; a missing stream is empty, an erased (tombstoned) one reports it. */
async function streamPage(
  client: EventStoreDBClient,
  streamId: string,
  fromRevision: ReadRevision,
  backwards: boolean,
  limits: PageLimits,
): Promise<ReadPage<RecordedEvent> | 'erased'> {
  try {
    return await readPage(
      client.readStream(streamId, {
        fromRevision,
        maxCount: limits.maxCount,
        direction: backwards ? BACKWARDS : FORWARDS,
      }),
      limits,
      toRecordedEvent,
    );
  } catch (error) {
    if (error instanceof StreamNotFoundError) return { kept: [], received: 0, last: undefined, cut: false };
    if (error instanceof StreamDeletedError) return 'erased';
    throw error;
  }
}

/** The stream's last event, or why there is none. */
export async function streamHead(client: EventStoreDBClient, streamId: string): Promise<StreamHead> {
  const page = await streamPage(client, streamId, END, true, {
    maxCount: 1,
    maxBytes: Number.MAX_SAFE_INTEGER,
  });
  if (page === 'erased') return { kind: 'erased' };
  const last = page.kept[0];
  return last === undefined ? { kind: 'missing' } : { kind: 'found', last };
}

/** The limits of the next page when at most `remaining` events are still wanted. */
function nextLimits(limits: PageLimits, remaining: number): PageLimits {
  return remaining < limits.maxCount ? { ...limits, maxCount: remaining } : limits;
}

export async function* readStreamPaged(
  client: EventStoreDBClient,
  streamId: string,
  options: ReadStreamOptions,
  limits: PageLimits,
): AsyncGenerator<RecordedEvent> {
  const backwards = options.direction === 'backwards';
  const from = options.fromRevision ?? (backwards ? 'end' : 'start');
  if ((from === 'start' && backwards) || (from === 'end' && !backwards)) return;
  let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
  let next: ReadRevision = from === 'start' ? START : from === 'end' ? END : from;
  while (remaining > 0) {
    const pageLimits = nextLimits(limits, remaining);
    const page = await streamPage(client, streamId, next, backwards, pageLimits);
    if (page === 'erased') return;
    const { kept, received, cut } = page;
    const last = page.last?.event?.revision;
    for (let event = kept.shift(); event !== undefined; event = kept.shift()) {
      yield event;
      remaining -= 1;
    }
    if ((!cut && received < pageLimits.maxCount) || last === undefined || (backwards && last === 0n)) return;
    next = backwards ? last - 1n : last + 1n;
  }
}

function positionOf(resolved: ResolvedEvent): Position | undefined {
  return resolved.event?.position ?? resolved.link?.position;
}

function allRead(
  client: EventStoreDBClient,
  fromPosition: ReadPosition,
  backwards: boolean,
  maxCount: number,
): StreamingRead<ResolvedEvent> {
  return client.readAll({ fromPosition, maxCount, direction: backwards ? BACKWARDS : FORWARDS });
}

/** Reads `$all`, showing only what the port may see and what the filter selects. */
export async function* readAllPaged(
  client: EventStoreDBClient,
  options: ReadAllOptions,
  erasedStreams: Set<string>,
  limits: PageLimits,
): AsyncGenerator<RecordedEvent> {
  const backwards = options.direction === 'backwards';
  const from = options.fromPosition ?? (backwards ? 'end' : 'start');
  if ((from === 'start' && backwards) || (from === 'end' && !backwards)) return;
  let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
  const selected = (resolved: ResolvedEvent): RecordedEvent | undefined => {
    if (!backwards) noteErasure(resolved, erasedStreams);
    if (!isVisibleInAll(resolved, erasedStreams)) return undefined;
    const event = resolved.event;
    if (event === undefined) return undefined;
    if (!matchesEventFilter({ ...event, metadata: metadataRecordOf(event.metadata) }, options.filter)) {
      return undefined;
    }
    return toRecordedEvent(resolved);
  };
  let cursor: ReadPosition = typeof from === 'bigint' ? toEsdbPosition(from) : from === 'start' ? START : END;
  if (backwards && typeof from === 'bigint' && remaining > 0) {
    const atStart = await readPage(
      allRead(client, cursor, false, 1),
      { maxCount: 1, maxBytes: 1 },
      (resolved) => (positionOf(resolved)?.commit === from ? selected(resolved) : undefined),
    );
    const event = atStart.kept[0];
    if (event !== undefined) {
      yield event;
      remaining -= 1;
    }
  }
  let alreadyRead: bigint | undefined;
  while (remaining > 0) {
    // A forward page starts with the last event of the one before it, which is read again.
    const pageLimits = nextLimits(limits, remaining);
    const asked = alreadyRead === undefined ? pageLimits.maxCount : pageLimits.maxCount + 1;
    const page = await readPage(allRead(client, cursor, backwards, asked), pageLimits, (resolved) =>
      alreadyRead !== undefined && positionOf(resolved)?.commit === alreadyRead
        ? undefined
        : selected(resolved),
    );
    const { kept, received, cut } = page;
    for (let event = kept.shift(); event !== undefined; event = kept.shift()) {
      yield event;
      remaining -= 1;
    }
    const lastPosition = page.last === undefined ? undefined : positionOf(page.last);
    if ((!cut && received < asked) || lastPosition === undefined) return;
    cursor = lastPosition;
    if (!backwards) alreadyRead = lastPosition.commit;
  }
}
