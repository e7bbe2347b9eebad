// Row shapes of the SQLite event tables, their mapping to port types, and the SQL for reads
// of the global log (position bounds, direction and EventFilter), prepared once per shape.
// Pages are filled row by row and stop at their byte limit, so a page of large events never
// holds more than one of them beyond that limit.
import type Database from 'better-sqlite3';
import {
  ERASURE_EVENT_TYPE,
  ERASURE_LOG_STREAM,
  type EventFilter,
  type PageLimits,
  type RecordedEvent,
} from '../port';
import { deepFreeze, fromJsonText, toJsonRecord } from '../shared/json-values';
import { PageFill } from '../shared/page-limits';
import { storedTextString, type StoredText } from '../shared/stored-text';
import { EVENT_TENANT_SQL } from './sqlite-database';
import type { SharedEventData } from './shared-event-data';

export interface EventRow {
  readonly global_position: bigint;
  readonly stream_id: string;
  readonly stream_revision: bigint;
  readonly event_id: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
  readonly created_at: string;
  /**
   * The data's length as a string, on a row whose data is decoded only when read (a row this
   * process wrote from shared UTF-8, rowWithText): bounds and the shared values use it instead.
   */
  readonly dataChars?: number;
}

/** The length of a row's data as a string, without decoding it. */
export function rowDataChars(row: EventRow): number {
  return row.dataChars ?? row.data.length;
}

/**
 * The row of an event written with this data: a string as it is; shared UTF-8 decoded at the
 * first read of `data` (once), its length known before.
 */
export function rowWithText(fields: Omit<EventRow, 'data' | 'dataChars'>, stored: StoredText): EventRow {
  if (typeof stored === 'string') return { ...fields, data: stored };
  let text: string | undefined;
  return {
    ...fields,
    dataChars: stored.chars,
    get data(): string {
      text ??= storedTextString(stored);
      return text;
    },
  };
}

export const EVENT_COLUMNS =
  'global_position, stream_id, stream_revision, event_id, type, data, metadata, created_at';

/** The largest SQLite integer, used as an open upper bound. */
export const MAX_SQLITE_INTEGER = 9_223_372_036_854_775_807n;

/**
 * The event of a row. Its data is parsed when first read, and once: a reader that only looks at
 * ids, revisions or metadata (the write side checking that a cached fold still ends where it
 * did, a filter, the integrity walk's metadata) never pays for parsing megabytes of content.
 * With `shared`, a value another reader of the store parsed is taken instead (shared-event-data.ts).
 */
export function recordedEventFromRow(row: EventRow, shared?: SharedEventData): RecordedEvent {
  return recordedEvent(row, () => row.data, shared, rowDataChars(row));
}

/**
 * The columns of an event row stored before its data. SQLite keeps a row's columns in order and
 * a large data value on overflow pages, so reading a column stored after it (metadata, the time)
 * walks every one of those pages: these are read without touching them.
 */
export type EventHeaderRow = Pick<
  EventRow,
  'global_position' | 'stream_id' | 'stream_revision' | 'event_id' | 'type'
>;

export const EVENT_HEADER_COLUMNS = 'global_position, stream_id, stream_revision, event_id, type';

/** What a lazily read event loads from its row when first asked: its data, or its metadata and time. */
export interface EventRowLoads {
  /** The stored data text; undefined when the event is no longer stored. */
  data(): string | undefined;
  /** The stored metadata text and time; undefined when the event is no longer stored. */
  metadataAndTime(): { readonly metadata: string; readonly created_at: string } | undefined;
}

/**
 * The event of a row read by its header only (see LazyEventReads): its data, metadata and time
 * are loaded from the store when first read, and an event erased meanwhile says so.
 */
export function recordedEventFromHeader(
  row: EventHeaderRow,
  loads: EventRowLoads,
  shared?: SharedEventData,
): RecordedEvent {
  const gone = (): Error => new Error(`event ${row.event_id} of ${row.stream_id} is no longer stored`);
  let rest: { readonly metadata: Readonly<Record<string, unknown>>; readonly createdAt: string } | undefined;
  const loadRest = () => {
    if (rest === undefined) {
      const loaded = loads.metadataAndTime();
      if (loaded === undefined) throw gone();
      rest = {
        metadata: deepFreeze(toJsonRecord(fromJsonText(loaded.metadata))),
        createdAt: loaded.created_at,
      };
    }
    return rest;
  };
  const data = lazyData(
    row,
    () => {
      const text = loads.data();
      if (text === undefined) throw gone();
      return text;
    },
    shared,
  );
  return Object.freeze({
    streamId: row.stream_id,
    id: row.event_id,
    type: row.type,
    get data(): unknown {
      return data();
    },
    get metadata(): Readonly<Record<string, unknown>> {
      return loadRest().metadata;
    },
    revision: row.stream_revision,
    position: row.global_position,
    get createdAt(): string {
      return loadRest().createdAt;
    },
  });
}

/**
 * The parsed data of a row, read and parsed at the first call (shared with the store's other
 * readers when `shared` is given); the stored text is dropped once parsed, so that it is not kept
 * alive beside the value. With `knownChars` (the text's length, known without reading it), a
 * value another reader holds is taken without reading or decoding the text at all.
 */
function lazyData(
  row: EventHeaderRow,
  storedData: () => string,
  shared?: SharedEventData,
  knownChars?: number,
): () => unknown {
  const { global_position: position, stream_id: streamId, event_id: eventId } = row;
  let load: (() => string) | undefined = storedData;
  let data: unknown;
  return () => {
    if (load !== undefined) {
      const read = load;
      if (shared === undefined) data = deepFreeze(fromJsonText(read()));
      else if (knownChars !== undefined) {
        data = shared.dataOf(position, streamId, eventId, knownChars, () => deepFreeze(fromJsonText(read())));
      } else {
        const stored = read();
        data = shared.dataOf(position, streamId, eventId, stored.length, () =>
          deepFreeze(fromJsonText(stored)),
        );
      }
      load = undefined;
    }
    return data;
  };
}

function recordedEvent(
  row: EventRow,
  storedData: () => string,
  shared?: SharedEventData,
  knownChars?: number,
): RecordedEvent {
  const data = lazyData(row, storedData, shared, knownChars);
  return Object.freeze({
    streamId: row.stream_id,
    id: row.event_id,
    type: row.type,
    get data(): unknown {
      return data();
    },
    metadata: deepFreeze(toJsonRecord(fromJsonText(row.metadata))),
    revision: row.stream_revision,
    position: row.global_position,
    createdAt: row.created_at,
  });
}

/** The size a page counts for a row: its data and metadata as stored JSON text. */
export function rowBytes(row: EventRow): number {
  return rowDataChars(row) + row.metadata.length;
}

/** One page of rows; `exhausted` when the query had no more rows to give. */
export interface RowPage {
  readonly rows: readonly EventRow[];
  readonly exhausted: boolean;
}

/** Runs a query of at most `limits.maxCount` rows and keeps the rows that fit the page. */
export function fillPage<Parameters extends unknown[]>(
  statement: Database.Statement<Parameters, EventRow>,
  parameters: Parameters,
  limits: PageLimits,
): RowPage {
  const rows: EventRow[] = [];
  const fill = new PageFill(limits);
  for (const row of statement.iterate(...parameters)) {
    rows.push(row);
    if (fill.add(rowBytes(row))) return { rows, exhausted: false };
  }
  return { rows, exhausted: true };
}

type RangeParameter = bigint | string | number;

/** A read of the global log between two exclusive position bounds. */
export interface LogRangeQuery {
  readonly direction: 'forwards' | 'backwards';
  readonly after: bigint;
  readonly before: bigint;
  readonly limits: PageLimits;
  readonly filter: EventFilter | undefined;
}

/** Builds (and caches by shape) the statements that read ranges of the global log. */
export class LogRangeReader {
  private readonly statements = new Map<string, Database.Statement<RangeParameter[], EventRow>>();

  constructor(private readonly database: Database.Database) {}

  read(query: LogRangeQuery): RowPage {
    const exactTypes = (query.filter?.eventTypes ?? []).filter((pattern) => !pattern.endsWith('*'));
    const typePrefixes = (query.filter?.eventTypes ?? [])
      .filter((pattern) => pattern.endsWith('*'))
      .map((pattern) => pattern.slice(0, -1));
    const streamPrefixes = query.filter?.streamPrefixes ?? [];
    const tenants = query.filter?.tenant === undefined ? [] : [query.filter.tenant];
    const statement = this.statementFor(
      query.direction,
      tenants.length > 0,
      exactTypes.length,
      typePrefixes.length,
      streamPrefixes.length,
      query.filter?.includeErasures === true,
    );
    return fillPage(
      statement,
      [
        query.after,
        query.before,
        ...tenants,
        ...exactTypes,
        ...typePrefixes,
        ...streamPrefixes,
        query.limits.maxCount,
      ],
      query.limits,
    );
  }

  private statementFor(
    direction: 'forwards' | 'backwards',
    byTenant: boolean,
    exactTypeCount: number,
    typePrefixCount: number,
    streamPrefixCount: number,
    includeErasures: boolean,
  ): Database.Statement<RangeParameter[], EventRow> {
    const key = `${direction}:${byTenant}:${exactTypeCount}:${typePrefixCount}:${streamPrefixCount}:${includeErasures}`;
    const cached = this.statements.get(key);
    if (cached !== undefined) return cached;
    const conditions = ['global_position > ?', 'global_position < ?'];
    if (byTenant) conditions.push(`${EVENT_TENANT_SQL} = ?`);
    // The erasure log is shown only when asked for, whatever the other criteria.
    const selected = [`stream_id <> '${ERASURE_LOG_STREAM}'`];
    const typeAlternatives = [
      ...(exactTypeCount > 0 ? [`type IN (${placeholders(exactTypeCount)})`] : []),
      ...Array.from({ length: typePrefixCount }, () => 'instr(type, ?) = 1'),
    ];
    if (typeAlternatives.length > 0) selected.push(`(${typeAlternatives.join(' OR ')})`);
    if (streamPrefixCount > 0) {
      const streamAlternatives = Array.from({ length: streamPrefixCount }, () => 'instr(stream_id, ?) = 1');
      selected.push(`(${streamAlternatives.join(' OR ')})`);
    }
    const erasures = `(stream_id = '${ERASURE_LOG_STREAM}' AND type = '${ERASURE_EVENT_TYPE}')`;
    conditions.push(
      includeErasures ? `((${selected.join(' AND ')}) OR ${erasures})` : `(${selected.join(' AND ')})`,
    );
    const order = direction === 'forwards' ? 'ASC' : 'DESC';
    const statement = this.database.prepare<RangeParameter[], EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE ${conditions.join(' AND ')} ORDER BY global_position ${order} LIMIT ?`,
    );
    this.statements.set(key, statement);
    return statement;
  }
}

function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}
