// Paged reads of the EventStoreDB adapter. Each page is one complete client read, so breaking out
// of an iteration never leaves a gRPC call open. Stream reads are inclusive of their start in both
// directions on the server as in the port. `$all` reads are inclusive forwards but exclusive
// backwards on the server, so a backwards read from a position first fetches the event at that
// position itself. `$all` is filtered on the client (6.2.1 offers no server-side filter for reads).
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
} from '@eventstore/db-client';
import { matchesEventFilter, type ReadAllOptions, type ReadStreamOptions, type RecordedEvent } from '../port';
import { isVisibleInAll, toEsdbPosition, toRecordedEvent } from './esdb-mapping';

export type StreamHead =
  | { readonly kind: 'missing' }
  | { readonly kind: 'erased' }
  | { readonly kind: 'found'; readonly last: RecordedEvent };

async function collect(events: AsyncIterable<ResolvedEvent>): Promise<ResolvedEvent[]> {
  const collected: ResolvedEvent[] = [];
  for await (const resolved of events) collected.push(resolved);
  return collected;
}

/** One page of a stream; a missing stream is empty, an erased (tombstoned) one reports it. */
async function streamPage(
  client: EventStoreDBClient,
  streamId: string,
  fromRevision: ReadRevision,
  backwards: boolean,
  maxCount: number,
): Promise<ResolvedEvent[] | 'erased'> {
  try {
    return await collect(
      client.readStream(streamId, { fromRevision, maxCount, direction: backwards ? BACKWARDS : FORWARDS }),
    );
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    if (error instanceof StreamDeletedError) return 'erased';
    throw error;
  }
}

/** The stream's last event, or why there is none. */
export async function streamHead(client: EventStoreDBClient, streamId: string): Promise<StreamHead> {
  const page = await streamPage(client, streamId, END, true, 1);
  if (page === 'erased') return { kind: 'erased' };
  const last = page[0] === undefined ? undefined : toRecordedEvent(page[0]);
  return last === undefined ? { kind: 'missing' } : { kind: 'found', last };
}

export async function* readStreamPaged(
  client: EventStoreDBClient,
  streamId: string,
  options: ReadStreamOptions,
  pageSize: number,
): AsyncGenerator<RecordedEvent> {
  const backwards = options.direction === 'backwards';
  const from = options.fromRevision ?? (backwards ? 'end' : 'start');
  if ((from === 'start' && backwards) || (from === 'end' && !backwards)) return;
  let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
  let next: ReadRevision = from === 'start' ? START : from === 'end' ? END : from;
  while (remaining > 0) {
    const size = Math.min(pageSize, remaining);
    const page = await streamPage(client, streamId, next, backwards, size);
    if (page === 'erased') return;
    for (const resolved of page) {
      const event = toRecordedEvent(resolved);
      if (event === undefined) continue;
      yield event;
      remaining -= 1;
    }
    const last = page[page.length - 1]?.event?.revision;
    if (page.length < size || last === undefined || (backwards && last === 0n)) return;
    next = backwards ? last - 1n : last + 1n;
  }
}

function positionOf(resolved: ResolvedEvent): Position | undefined {
  return resolved.event?.position ?? resolved.link?.position;
}

async function allPage(
  client: EventStoreDBClient,
  fromPosition: ReadPosition,
  backwards: boolean,
  maxCount: number,
): Promise<ResolvedEvent[]> {
  return collect(client.readAll({ fromPosition, maxCount, direction: backwards ? BACKWARDS : FORWARDS }));
}

/** Reads `$all`, showing only what the port may see and what the filter selects. */
export async function* readAllPaged(
  client: EventStoreDBClient,
  options: ReadAllOptions,
  erasedStreams: ReadonlySet<string>,
  pageSize: number,
): AsyncGenerator<RecordedEvent> {
  const backwards = options.direction === 'backwards';
  const from = options.fromPosition ?? (backwards ? 'end' : 'start');
  if ((from === 'start' && backwards) || (from === 'end' && !backwards)) return;
  let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
  const selected = (resolved: ResolvedEvent): RecordedEvent | undefined => {
    if (!isVisibleInAll(resolved, erasedStreams)) return undefined;
    const event = toRecordedEvent(resolved);
    return event !== undefined && matchesEventFilter(event, options.filter) ? event : undefined;
  };
  let cursor: ReadPosition = typeof from === 'bigint' ? toEsdbPosition(from) : from === 'start' ? START : END;
  if (backwards && typeof from === 'bigint' && remaining > 0) {
    const [atStart] = await allPage(client, cursor, false, 1);
    const event =
      atStart !== undefined && positionOf(atStart)?.commit === from ? selected(atStart) : undefined;
    if (event !== undefined) {
      yield event;
      remaining -= 1;
    }
  }
  let alreadyRead: bigint | undefined;
  while (remaining > 0) {
    const page = await allPage(client, cursor, backwards, pageSize);
    for (const resolved of page) {
      if (alreadyRead !== undefined && positionOf(resolved)?.commit === alreadyRead) continue;
      const event = selected(resolved);
      if (event === undefined) continue;
      yield event;
      remaining -= 1;
      if (remaining <= 0) return;
    }
    const last = page[page.length - 1];
    const lastPosition = last === undefined ? undefined : positionOf(last);
    if (page.length < pageSize || lastPosition === undefined) return;
    cursor = lastPosition;
    if (!backwards) alreadyRead = lastPosition.commit;
  }
}
