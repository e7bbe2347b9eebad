// Paged reads of the SQLite event store: one stream by revision, or the global log by
// position, each page one prepared query, so no statement stays open across awaits.
import type { ReadAllOptions, ReadStreamOptions, RecordedEvent } from '../port';
import {
  MAX_SQLITE_INTEGER,
  recordedEventFromRow,
  type EventRow,
  type LogRangeReader,
} from './sqlite-event-rows';
import type { SqliteEventStatements } from './sqlite-event-statements';

/** One stream's events, read in pages of `batchSize` as the caller iterates. */
export function* streamPages(
  statements: SqliteEventStatements,
  streamId: string,
  options: ReadStreamOptions,
  batchSize: number,
): Generator<RecordedEvent> {
  const backwards = options.direction === 'backwards';
  const from = options.fromRevision ?? (backwards ? 'end' : 'start');
  if (from === (backwards ? 'start' : 'end')) return;
  let cursor = from === 'start' ? 0n : from === 'end' ? MAX_SQLITE_INTEGER : from;
  let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
  const statement = backwards ? statements.selectStreamBackwards : statements.selectStreamForwards;
  while (remaining > 0) {
    const page: readonly EventRow[] = statement.all(streamId, cursor, Math.min(remaining, batchSize));
    for (const row of page) yield recordedEventFromRow(row);
    const last = page[page.length - 1];
    if (last === undefined || page.length < Math.min(remaining, batchSize)) return;
    remaining -= page.length;
    cursor = backwards ? last.stream_revision - 1n : last.stream_revision + 1n;
  }
}

/** The global log's events (filtered), read in pages of `batchSize` as the caller iterates. */
export function* logPages(
  logReader: LogRangeReader,
  options: ReadAllOptions,
  batchSize: number,
): Generator<RecordedEvent> {
  const backwards = options.direction === 'backwards';
  const from = options.fromPosition ?? (backwards ? 'end' : 'start');
  if (from === (backwards ? 'start' : 'end')) return;
  const explicit = typeof from === 'bigint' ? from : undefined;
  let after = !backwards && explicit !== undefined ? explicit - 1n : 0n;
  let before = backwards && explicit !== undefined ? explicit + 1n : MAX_SQLITE_INTEGER;
  let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
  while (remaining > 0) {
    const limit = Math.min(remaining, batchSize);
    const page = logReader.read({
      direction: backwards ? 'backwards' : 'forwards',
      after,
      before,
      limit,
      filter: options.filter,
    });
    for (const row of page) yield recordedEventFromRow(row);
    const last = page[page.length - 1];
    if (last === undefined || page.length < limit) return;
    remaining -= page.length;
    if (backwards) before = last.global_position;
    else after = last.global_position;
  }
}
