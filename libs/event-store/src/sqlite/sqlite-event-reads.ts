// Paged reads of the SQLite event store: one stream by revision, or the global log by
// position, each page one prepared query bounded in rows and bytes, so no statement stays open
// across awaits and no page holds more than its limits allow.
import type { PageLimits, ReadAllOptions, ReadStreamOptions, RecordedEvent } from '../port';
import { MAX_SQLITE_INTEGER, fillPage, recordedEventFromRow, type LogRangeReader } from './sqlite-event-rows';
import type { SqliteEventStatements } from './sqlite-event-statements';
import type { SharedEventData } from './shared-event-data';

/** The limits of the next page when at most `remaining` events are still wanted. */
function nextLimits(limits: PageLimits, remaining: number): PageLimits {
  return remaining < limits.maxCount ? { ...limits, maxCount: remaining } : limits;
}

/** One stream's events, read a page at a time as the caller iterates. */
export function* streamPages(
  statements: SqliteEventStatements,
  streamId: string,
  options: ReadStreamOptions,
  limits: PageLimits,
  shared?: SharedEventData,
): Generator<RecordedEvent> {
  const backwards = options.direction === 'backwards';
  const from = options.fromRevision ?? (backwards ? 'end' : 'start');
  if (from === (backwards ? 'start' : 'end')) return;
  let cursor = from === 'start' ? 0n : from === 'end' ? MAX_SQLITE_INTEGER : from;
  let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
  const statement = backwards ? statements.selectStreamBackwards : statements.selectStreamForwards;
  while (remaining > 0) {
    const pageLimits = nextLimits(limits, remaining);
    const page = fillPage(statement, [streamId, cursor, pageLimits.maxCount], pageLimits);
    for (const row of page.rows) yield recordedEventFromRow(row, shared);
    const last = page.rows[page.rows.length - 1];
    if (last === undefined || page.exhausted) return;
    remaining -= page.rows.length;
    cursor = backwards ? last.stream_revision - 1n : last.stream_revision + 1n;
  }
}

/** The global log's events (filtered), read a page at a time as the caller iterates. */
export function* logPages(
  logReader: LogRangeReader,
  options: ReadAllOptions,
  limits: PageLimits,
  shared?: SharedEventData,
): Generator<RecordedEvent> {
  const backwards = options.direction === 'backwards';
  const from = options.fromPosition ?? (backwards ? 'end' : 'start');
  if (from === (backwards ? 'start' : 'end')) return;
  const explicit = typeof from === 'bigint' ? from : undefined;
  let after = !backwards && explicit !== undefined ? explicit - 1n : 0n;
  let before = backwards && explicit !== undefined ? explicit + 1n : MAX_SQLITE_INTEGER;
  let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
  while (remaining > 0) {
    const page = logReader.read({
      direction: backwards ? 'backwards' : 'forwards',
      after,
      before,
      limits: nextLimits(limits, remaining),
      filter: options.filter,
    });
    for (const row of page.rows) yield recordedEventFromRow(row, shared);
    const last = page.rows[page.rows.length - 1];
    if (last === undefined || page.exhausted) return;
    remaining -= page.rows.length;
    if (backwards) before = last.global_position;
    else after = last.global_position;
  }
}
