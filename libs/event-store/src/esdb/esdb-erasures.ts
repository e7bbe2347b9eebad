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

/** Every erasure record, oldest first (one per stream, should a retry have written it twice). */
export async function readErasures(client: EventStoreDBClient): Promise<readonly ErasureRecord[]> {
  const records = new Map<string, ErasureRecord>();
  try {
    for await (const resolved of client.readStream(ERASURE_STREAM)) {
      const event = resolved.event;
      if (event === undefined || event.type !== ERASURE_EVENT_TYPE) continue;
      const record = erasureRecordSchema.parse(event.data);
      if (!records.has(record.streamId)) records.set(record.streamId, withoutUndefined(record));
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
  return [...records.values()];
}

function withoutUndefined(record: z.infer<typeof erasureRecordSchema>): ErasureRecord {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== undefined),
  ) as unknown as ErasureRecord;
}
