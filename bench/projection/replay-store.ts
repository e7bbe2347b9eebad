// The store the replay cases read: many generated sessions (of a few tenants) written to one
// SQLite file the way the engine records them — each event sealed into its stream's hash chain
// with the engine's metadata — until the log holds at least the events asked for. Runnable on
// its own to make a store for profiling `strata replay`:
//   node bin/run-ts.js bench/projection/replay-store.ts <file.db> [events]
import { randomUUID } from 'node:crypto';
import { SqliteEventStore, type EventToAppend } from '@strata/event-store';
import { sealEvents } from '@strata/integrity';
import { sessionStreamName } from '@strata/session';
import { generateSession } from '../context/generate-session';
import { recordedEventsOf } from './session-streams';

const ENTRIES_PER_SESSION = 2_000;
const EVENTS_PER_APPEND = 1_000;
const TENANTS = ['tenant-a', 'tenant-b', 'tenant-c', 'tenant-d'] as const;

export interface ReplayStore {
  readonly sessions: number;
  readonly events: number;
  readonly writeMs: number;
}

/** Writes sessions of about 2,000 entries each (each its own seed) until `minimumEvents` are stored. */
export async function writeReplayStore(filename: string, minimumEvents: number): Promise<ReplayStore> {
  const started = process.hrtime.bigint();
  const store = new SqliteEventStore({ filename, synchronous: 'normal' });
  let events = 0;
  let sessions = 0;
  try {
    while (events < minimumEvents) {
      const session = generateSession({
        entryCount: ENTRIES_PER_SESSION,
        seed: 1_000 + sessions,
        sessionId: `replay-${String(sessions).padStart(5, '0')}`,
        compactionThresholdTokens: 60_000,
        entriesPerBranch: 700,
      });
      const tenant = TENANTS[sessions % TENANTS.length] ?? 'default';
      const streamId = sessionStreamName(session.header.id);
      const unsealed: EventToAppend[] = recordedEventsOf(session).map((event) => ({
        id: randomUUID(),
        type: event.type,
        data: event.data,
      }));
      const sealed = sealEvents(streamId, unsealed, undefined, { tenant, actor: 'bench' });
      for (let offset = 0; offset < sealed.length; offset += EVENTS_PER_APPEND) {
        await store.appendToStream(streamId, sealed.slice(offset, offset + EVENTS_PER_APPEND), {
          expectedRevision: offset === 0 ? 'no_stream' : BigInt(offset - 1),
        });
      }
      events += sealed.length;
      sessions += 1;
    }
  } finally {
    await store.close();
  }
  return { sessions, events, writeMs: Number(process.hrtime.bigint() - started) / 1e6 };
}

if (process.argv[1] === __filename) {
  const [filename, wanted] = process.argv.slice(2);
  if (filename === undefined) {
    process.stderr.write('usage: node bin/run-ts.js bench/projection/replay-store.ts <file.db> [events]\n');
    process.exit(2);
  }
  writeReplayStore(filename, Number(wanted ?? 200_000)).then(
    (written) => process.stdout.write(`${JSON.stringify(written)}\n`),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
  );
}
