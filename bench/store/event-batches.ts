// The events the store suite appends: session entries from a generated session (realistic
// sizes, about 1.5 kB of JSON each) wrapped as `EntryAppended` events with the metadata every
// Strata event carries, with time-ordered UUIDv7 ids made before any timing starts. The same
// events feed the adapter and, pre-serialised as rows, the raw better-sqlite3 baseline.
import type { EventToAppend } from '@strata/event-store';
import { createUuidV7Generator } from '../../libs/event-store/src/ids/uuidv7';
import { SeededRandom } from '../context/synthetic-text';
import { generateSession } from '../context/generate-session';

/** One event as a database row: the same values the adapter stores, already serialised. */
export interface EventRowValues {
  readonly id: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
}

export interface EventBatchPlan {
  /** Events per append. */
  readonly batchSize: number;
  /** Events per stream before the next stream starts (a session's length). */
  readonly eventsPerStream: number;
  readonly events: readonly EventToAppend[];
  readonly rows: readonly EventRowValues[];
}

/** Session entries to use as event data, generated once and reused (cycled) by every plan. */
export function entryPayloads(count: number): readonly object[] {
  const session = generateSession({ entryCount: count, seed: 7 });
  return session.entries.slice(0, count);
}

/** Small payloads (a label entry, about 150 bytes of data) to compare with per-event overheads. */
export function smallPayloads(count: number): readonly object[] {
  return Array.from({ length: count }, (_, index) => ({
    type: 'label',
    id: `label-${index}`,
    parentId: `entry-${index}`,
    timestamp: '2026-01-01T00:00:00.000Z',
    targetId: `entry-${index}`,
    label: `checkpoint-${index}`,
  }));
}

function hexOf(random: SeededRandom, length: number): string {
  let text = '';
  while (text.length < length) text += random.integer(0, 0xffff).toString(16).padStart(4, '0');
  return text.slice(0, length);
}

/**
 * `eventCount` events over streams of `eventsPerStream`, with fresh UUIDv7 ids (so that plans
 * can be written again into a fresh database without clashing ids inside one database).
 */
export function planEvents(
  payloads: readonly object[],
  eventCount: number,
  batchSize: number,
  eventsPerStream: number,
  seed: number,
): EventBatchPlan {
  const random = new SeededRandom(seed);
  const nextId = createUuidV7Generator();
  const events: EventToAppend[] = [];
  for (let index = 0; index < eventCount; index += 1) {
    const id = nextId();
    events.push({
      id,
      type: 'EntryAppended',
      data: { entry: payloads[index % payloads.length] },
      metadata: {
        tenant: 'bench-tenant',
        actor: 'bench-user',
        correlationId: id,
        causationId: id,
        schemaVersion: 1,
        hash: hexOf(random, 64),
        previousHash: hexOf(random, 64),
      },
    });
  }
  const rows = events.map((event) => ({
    id: event.id,
    type: event.type,
    data: JSON.stringify(event.data),
    metadata: JSON.stringify(event.metadata),
  }));
  return { batchSize, eventsPerStream, events, rows };
}

/** The stream of the event at `index` of a plan. */
export function streamOf(index: number, eventsPerStream: number): string {
  return `session-bench-${String(Math.floor(index / eventsPerStream)).padStart(4, '0')}`;
}
