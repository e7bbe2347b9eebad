// The erasure audit trail of the EventStoreDB adapter: one `strata.stream-erased` event per erased
// stream in the `strata-erasures` stream, written before the stream is tombstoned. It holds who,
// when, why and how many events, never content. Records are validated when read back.
import { jsonEvent, StreamNotFoundError, type EventStoreDBClient } from '@eventstore/db-client';
import { z } from 'zod';
import { erasureEventData, type ErasureRecord } from '../port';
import { ERASURE_EVENT_TYPE, ERASURE_STREAM, erasureEventId } from './esdb-mapping';

const erasureRecordSchema = z.object({
  streamId: z.string(),
  actor: z.string(),
  reason: z.string(),
  tenant: z.string().optional(),
  erasedAt: z.string(),
  eventCount: z.number().int().nonnegative(),
  headHash: z.string().optional(),
  headRevision: z.string().optional(),
});

/** Appends the audit record; a retry of the same erasure appends the same event id again. */
export async function recordErasure(client: EventStoreDBClient, record: ErasureRecord): Promise<void> {
  const data = erasureEventData(record) as z.infer<typeof erasureRecordSchema>;
  await client.appendToStream(
    ERASURE_STREAM,
    jsonEvent({
      id: erasureEventId(record.streamId),
      type: ERASURE_EVENT_TYPE,
      data,
      metadata: record.tenant === undefined ? {} : { tenant: record.tenant },
    }),
  );
}

/**
 * The erasure records of one store, read incrementally: each read asks the server only for the
 * records appended since the last one (a store keeps them, one small record per erased stream),
 * so listing erasures, or starting a read of `$all` that must hide erased streams, costs what
 * was erased since, not every erasure ever made. Callers that arrive while a read runs share
 * the next read, which starts after theirs arrived: a record appended before a call is in its
 * answer.
 */
export class ErasureRecords {
  private readonly records = new Map<string, ErasureRecord>();
  /** The revision of `strata-erasures` to read next. */
  private next = 0n;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly client: EventStoreDBClient) {}

  /** Every erasure record, oldest first (one per stream, should a retry have written it twice). */
  async all(): Promise<readonly ErasureRecord[]> {
    await this.catchUp();
    return [...this.records.values()];
  }

  /** The ids of the erased streams. */
  async streamIds(): Promise<Set<string>> {
    await this.catchUp();
    return new Set(this.records.keys());
  }

  private catchUp(): Promise<void> {
    if (this.queued !== undefined) return this.queued;
    if (this.running === undefined) return this.start();
    const after = () => {
      this.queued = undefined;
      return this.start();
    };
    this.queued = this.running.then(after, after);
    return this.queued;
  }

  private start(): Promise<void> {
    const run = this.readNew().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async readNew(): Promise<void> {
    try {
      for await (const resolved of this.client.readStream(ERASURE_STREAM, { fromRevision: this.next })) {
        const event = resolved.event;
        if (event === undefined) continue;
        this.next = event.revision + 1n;
        if (event.type !== ERASURE_EVENT_TYPE) continue;
        const record = erasureRecordSchema.parse(event.data);
        if (!this.records.has(record.streamId)) this.records.set(record.streamId, withoutUndefined(record));
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
  }
}

function withoutUndefined(record: z.infer<typeof erasureRecordSchema>): ErasureRecord {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== undefined),
  ) as unknown as ErasureRecord;
}
