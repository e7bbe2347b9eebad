// Paged reads of the SQLite event store: one stream by revision, or the global log by
// position, each page one prepared query bounded in rows and bytes, so no statement stays open
// across awaits and no page holds more than its limits allow.
import type { PageLimits, ReadAllOptions, ReadStreamOptions, RecordedEvent } from '../port';
import type { RecentAppends } from './recent-appends';
import {
  MAX_SQLITE_INTEGER,
  fillPage,
  recordedEventFromRow,
  type EventRow,
  type LogRangeReader,
} from './sqlite-event-rows';
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
  recent?: RecentAppends,
): Generator<RecordedEvent> {
  const backwards = options.direction === 'backwards';
  const from = options.fromRevision ?? (backwards ? 'end' : 'start');
  if (from === (backwards ? 'start' : 'end')) return;
  let cursor = from === 'start' ? 0n : from === 'end' ? MAX_SQLITE_INTEGER : from;
  let remaining = options.maxCount ?? Number.POSITIVE_INFINITY;
  if (!backwards && recent !== undefined && typeof from === 'bigint') {
    const served = servedFromMemory(statements, recent, streamId, cursor, remaining);
    if (served !== undefined) {
      for (const row of served) yield recordedEventFromRow(row, shared);
      return;
    }
  }
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

/**
 * A forward read's rows when this store wrote every one of them since `first`, up to the stream's
 * last revision as the file records it (and at most `count`); undefined to read the file.
 */
function servedFromMemory(
  statements: SqliteEventStatements,
  recent: RecentAppends,
  streamId: string,
  first: bigint,
  count: number,
): EventRow[] | undefined {
  const stream = statements.selectStream.get(streamId);
  if (stream === undefined || stream.erased !== 0n) return undefined;
  let last = stream.last_revision;
  if (Number.isFinite(count) && first + BigInt(count) - 1n < last) last = first + BigInt(count) - 1n;
  return recent.streamRun(streamId, first, last);
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
