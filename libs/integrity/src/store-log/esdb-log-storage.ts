// The signed log of an EventStoreDB store (decision 0018): the `strata-anchors` stream, which no
// read model sees. Anchors signed before the log was chained are `strata.anchor-signed` events;
// chained entries are `strata.log-entry` events whose data is the signed entry. An entry's
// position is its event's revision plus one, so the first is at 1. A write appends with the
// revision of the head it chained to as the expected revision: the server refuses it when another
// engine appended first, and the entries are chained again.
import {
  jsonEvent,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type EventStoreDBClient,
} from '@eventstore/db-client';
import { ANCHOR_EVENT_TYPE, ANCHOR_STREAM, createUuidV7Generator } from '@strata/event-store';
import { anchorSchema, type Anchor } from '../anchors/anchor';
import { LOG_GENESIS_HASH, parseLogEntryText, type CheckpointLogEntry, type LogEntry } from './log-entry';
import {
  anchorSelected,
  LAST_LOG_POSITION,
  type LoggedItem,
  type LogHead,
  type LogRead,
  type LogStorage,
  type WriteOutcome,
} from './log-storage';

/** The type of a chained entry's event. */
export const LOG_ENTRY_EVENT_TYPE = 'strata.log-entry';

const PAGE_SIZE = 500;

interface PageItem {
  readonly revision: bigint;
  readonly item: LoggedItem;
}

function tenantOf(metadata: unknown): string | undefined {
  const tenant = (metadata as { readonly tenant?: unknown } | undefined)?.tenant;
  return typeof tenant === 'string' ? tenant : undefined;
}

export class EsdbLogStorage implements LogStorage {
  private readonly nextId = createUuidV7Generator();

  constructor(private readonly client: EventStoreDBClient) {}

  async head(): Promise<LogHead> {
    // read to the end of the call before looking (an iteration left early keeps the gRPC call open)
    const [last] = await this.readBackwards('end', 1);
    if (last === undefined) return { position: 0n, hash: LOG_GENESIS_HASH };
    const position = last.revision + 1n;
    if (last.type !== LOG_ENTRY_EVENT_TYPE) return { position, hash: LOG_GENESIS_HASH };
    const parsed = parseLogEntryText(position, JSON.stringify(last.data));
    // an unreadable last entry: chain to what it claims, so the break shows there and not after
    const hash = typeof parsed === 'string' ? String((last.data as { hash?: unknown }).hash) : parsed.hash;
    return { position, hash };
  }

  /** Up to `count` events of the log, newest first, from `from`; none for a log that does not exist. */
  private async readBackwards(
    from: bigint | 'end',
    count: number,
  ): Promise<{ revision: bigint; type: string; data: unknown }[]> {
    const events: { revision: bigint; type: string; data: unknown }[] = [];
    try {
      for await (const resolved of this.client.readStream(ANCHOR_STREAM, {
        direction: 'backwards',
        fromRevision: from,
        maxCount: count,
      })) {
        const event = resolved.event;
        if (event !== undefined)
          events.push({ revision: event.revision, type: event.type, data: event.data });
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return events;
  }

  async writeIfHead(
    expected: LogHead,
    entries: readonly { readonly entry: LogEntry; readonly tenant: string | undefined }[],
  ): Promise<WriteOutcome> {
    try {
      await this.client.appendToStream(
        ANCHOR_STREAM,
        entries.map(({ entry, tenant }) =>
          jsonEvent({
            id: this.nextId(),
            type: LOG_ENTRY_EVENT_TYPE,
            data: { ...entry },
            ...(tenant !== undefined ? { metadata: { tenant } } : {}),
          }),
        ),
        { expectedRevision: expected.position === 0n ? 'no_stream' : expected.position - 1n },
      );
      return { written: true };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      return { written: false, head: await this.head() };
    }
  }

  /** Read backwards from the end, a page at a time, until a checkpoint (the whole stream when there is none). */
  async lastCheckpoint(): Promise<CheckpointLogEntry | undefined> {
    let from: bigint | 'end' = 'end';
    for (;;) {
      const page = await this.readBackwards(from, PAGE_SIZE);
      for (const event of page) {
        if (event.type !== LOG_ENTRY_EVENT_TYPE) continue;
        const parsed = parseLogEntryText(event.revision + 1n, JSON.stringify(event.data));
        if (typeof parsed !== 'string' && parsed.kind === 'checkpoint') return parsed;
      }
      const last = page[page.length - 1];
      if (last === undefined || last.revision === 0n || page.length < PAGE_SIZE) return undefined;
      from = last.revision - 1n;
    }
  }

  async *entries(after: bigint): AsyncIterable<LoggedItem> {
    if (after >= LAST_LOG_POSITION) return;
    for await (const { item } of this.items(after)) yield item;
  }

  async *anchors(query: LogRead): AsyncIterable<Anchor & { readonly position: string }> {
    const after = query.after ?? 0n;
    if (after >= LAST_LOG_POSITION) return;
    for await (const { item } of this.items(after)) {
      if (item.source === 'unreadable' || item.entry.kind === 'checkpoint' || item.entry.kind === 'erasure')
        continue;
      const anchor = item.entry as Anchor & { readonly position: string };
      if (anchorSelected(anchor, item.tenant, query)) yield anchor;
    }
  }

  private async *items(after: bigint): AsyncGenerator<PageItem> {
    let from = after;
    for (;;) {
      const page = await this.readPage(from);
      yield* page;
      if (page.length < PAGE_SIZE) return;
      from = page[page.length - 1]!.revision + 1n;
    }
  }

  /** One page from revision `from`, read to its end before anything is handed out (no gRPC call is left open). */
  private async readPage(from: bigint): Promise<PageItem[]> {
    const page: PageItem[] = [];
    try {
      for await (const resolved of this.client.readStream(ANCHOR_STREAM, {
        fromRevision: from,
        maxCount: PAGE_SIZE,
      })) {
        const event = resolved.event;
        if (event === undefined) continue;
        const position = event.revision + 1n;
        const tenant = tenantOf(event.metadata);
        const withTenant = tenant !== undefined ? { tenant } : {};
        if (event.type === LOG_ENTRY_EVENT_TYPE) {
          const parsed = parseLogEntryText(position, JSON.stringify(event.data));
          page.push({
            revision: event.revision,
            item:
              typeof parsed === 'string'
                ? { source: 'unreadable', position: position.toString(), reason: parsed }
                : { source: 'chained', entry: parsed, ...withTenant },
          });
          continue;
        }
        const legacy = event.type === ANCHOR_EVENT_TYPE ? anchorSchema.safeParse(event.data) : undefined;
        page.push({
          revision: event.revision,
          item:
            legacy?.success === true
              ? { source: 'legacy', entry: { ...legacy.data, position: position.toString() }, ...withTenant }
              : {
                  source: 'unreadable',
                  position: position.toString(),
                  reason: `an event of type ${event.type} that holds no anchor`,
                },
        });
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return page;
  }
}
