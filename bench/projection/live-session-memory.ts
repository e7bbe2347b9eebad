// Memory per live session: the heap one session keeps in the context projection once hydrated,
// next to two yardsticks for the same session: the heap of its entries alone, as `loadSession`
// returns them (an array of parsed entries, nothing else), and the bytes of its events as
// stored (data + metadata JSON in SQLite). All measured across forced garbage collections.
// And both sides of the engine holding the session at once, as they do for a live session: the
// context projection and the write side's fold (`loadSession`'s state), which the store's shared
// parsed data lets hold one copy of each entry; each measurement starts with that sharing empty.
import { type SqliteEventStore } from '@strata/event-store';
import { loadSession } from '@strata/session-files';
import { sessionStreamName } from '@strata/session';
import { garbageCollector, measureRetainedHeapAsync, type FigureGroup } from '../harness';
import { newContextProjection } from './projection-cases';
import type { WrittenSession } from './session-streams';

export interface LiveSessionMemory {
  readonly entries: number;
  /** Heap kept alive by one hydrated session in a fresh projection; null without a collector. */
  readonly retainedBytes: number | null;
  readonly bytesPerEntry: number | null;
  readonly hydrationMs: number;
  /** Heap kept alive by the session's entries as `loadSession` returns them; null without a collector. */
  readonly parsedEntriesBytes: number | null;
  /** Heap kept alive by the projection and the write side's fold of the session at once. */
  readonly bothSidesBytes: number | null;
  /** UTF-8 bytes of the session's events as stored (data + metadata). */
  readonly storedBytes: number;
  readonly storedEvents: number;
}

async function hydratedProjectionHeap(
  store: SqliteEventStore,
  sessionId: string,
): Promise<{ retainedBytes: number | null; entries: number; hydrationMs: number }> {
  const collect = garbageCollector();
  collect?.();
  collect?.();
  const before = process.memoryUsage().heapUsed;
  const projection = newContextProjection(store);
  const started = process.hrtime.bigint();
  await projection.contextAt(sessionId);
  const hydrationMs = Number(process.hrtime.bigint() - started) / 1e6;
  collect?.();
  collect?.();
  const after = process.memoryUsage().heapUsed;
  return {
    retainedBytes: collect === null ? null : Math.max(0, after - before),
    entries: projection.stats().entries,
    hydrationMs,
  };
}

function storedBytesOf(store: SqliteEventStore, sessionId: string): { bytes: number; events: number } {
  const row = store.database
    .prepare(
      'SELECT count(*) AS events, coalesce(sum(length(CAST(data AS BLOB)) + length(CAST(metadata AS BLOB))), 0) AS bytes ' +
        'FROM events WHERE stream_id = ?',
    )
    .get(sessionStreamName(sessionId)) as { events: number | bigint; bytes: number | bigint };
  // The store's connection reads integers as bigint.
  return { events: Number(row.events), bytes: Number(row.bytes) };
}

/** Hydrates the session into a fresh projection and measures what it keeps, with the two yardsticks. */
export async function liveSessionMemory(
  store: SqliteEventStore,
  written: WrittenSession,
): Promise<LiveSessionMemory> {
  store.sharedData.clear();
  const projection = await hydratedProjectionHeap(store, written.sessionId);
  store.sharedData.clear();
  const parsed = await measureRetainedHeapAsync(
    async () => (await loadSession(store, written.sessionId)).entries,
  );
  store.sharedData.clear();
  const both = await measureRetainedHeapAsync(async () => {
    const held = newContextProjection(store);
    await held.contextAt(written.sessionId);
    const fold = await loadSession(store, written.sessionId);
    return { held, fold };
  });
  store.sharedData.clear();
  const stored = storedBytesOf(store, written.sessionId);
  return {
    entries: projection.entries,
    retainedBytes: projection.retainedBytes,
    bytesPerEntry:
      projection.retainedBytes === null
        ? null
        : Math.round(projection.retainedBytes / Math.max(1, projection.entries)),
    hydrationMs: Math.round(projection.hydrationMs * 10) / 10,
    parsedEntriesBytes: parsed.value.length > 0 ? parsed.retainedBytes : null,
    bothSidesBytes: both.value.fold.entries.length > 0 ? both.retainedBytes : null,
    storedBytes: stored.bytes,
    storedEvents: stored.events,
  };
}

function megabytes(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(0)} kB`;
}

/** The live session's heap per entry next to its yardsticks (null when no collector could be forced). */
export function liveSessionFigures(memory: LiveSessionMemory): FigureGroup | null {
  if (memory.retainedBytes === null || memory.parsedEntriesBytes === null) return null;
  const entries = Math.max(1, memory.entries);
  const row = (label: string, role: 'baseline' | 'subject', bytes: number) => {
    const perEntry = Math.round(bytes / entries);
    return {
      label,
      role,
      value: perEntry,
      display: `${(perEntry / 1000).toFixed(2)} kB/entry (${megabytes(bytes)})`,
    };
  };
  return {
    title: `memory per live session · ${memory.entries.toLocaleString('en-US')} entries`,
    unit: 'bytes/entry',
    lowerIsBetter: true,
    rows: [
      row(
        'its entries parsed from the stream, as an array (loadSession)',
        'baseline',
        memory.parsedEntriesBytes,
      ),
      row('its events as stored in SQLite (data + metadata JSON)', 'baseline', memory.storedBytes),
      row('context projection, hydrated (entries, tree, per-entry counts)', 'subject', memory.retainedBytes),
      ...(memory.bothSidesBytes === null
        ? []
        : [
            row(
              "context projection and the write side's fold at once (sharing parsed data)",
              'subject' as const,
              memory.bothSidesBytes,
            ),
          ]),
    ],
  };
}
