// The raw event log of a stream as JSON Lines (`strata export <id> --events`,
// `GET /sessions/{id}/export?format=events`): one line per event with everything its hash covers
// (stream, revision, id, type, data, metadata with `previousHash` and `hash`) and what the store
// added (global position, time), so that a third party can check the chain with no store.
import { z } from 'zod';
import type { EventStore, RecordedEvent } from '@strata/event-store';
import type { HashedEventFields } from '../hash-chain/event-seal';

/** One exported event. */
export interface ExportedEvent {
  readonly streamId: string;
  readonly revision: string;
  readonly position: string;
  readonly id: string;
  readonly type: string;
  readonly createdAt: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The longest event line read back (an imported entry may be as large as an import body). */
export const MAX_EVENT_LINE_BYTES = 256 * 1024 * 1024;

const decimal = z.string().regex(/^(0|[1-9][0-9]{0,19})$/, 'a decimal number');

export const exportedEventSchema = z
  .object({
    streamId: z.string().min(1),
    revision: decimal,
    position: decimal.optional(),
    id: z.string().min(1),
    type: z.string().min(1),
    createdAt: z.string().optional(),
    data: z.json(),
    metadata: z.record(z.string(), z.json()),
  })
  .strict();

/** The event as one JSON line, with its line break. */
export function eventLine(event: RecordedEvent): string {
  const exported: ExportedEvent = {
    streamId: event.streamId,
    revision: event.revision.toString(),
    position: event.position.toString(),
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    data: event.data,
    metadata: event.metadata,
  };
  return `${JSON.stringify(exported)}\n`;
}

/** The stream's events as lines, in revision order, read page by page. */
export async function* streamEventLines(store: EventStore, streamId: string): AsyncGenerator<string> {
  for await (const event of store.readStream(streamId, { uncached: true })) yield eventLine(event);
}

/** What the hash of an exported event covers, from its parsed line. */
export function hashedFieldsOf(event: z.infer<typeof exportedEventSchema>): HashedEventFields {
  return {
    streamId: event.streamId,
    revision: BigInt(event.revision),
    id: event.id,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
  };
}
