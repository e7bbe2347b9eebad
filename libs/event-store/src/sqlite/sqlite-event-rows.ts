// Row shapes of the SQLite event tables, their mapping to port types, and the SQL for reads
// of the global log (position bounds, direction and EventFilter), prepared once per shape.
import type Database from 'better-sqlite3';
import type { EventFilter, RecordedEvent } from '../port';
import { deepFreeze, fromJsonText, toJsonRecord } from '../shared/json-values';

export interface EventRow {
  readonly global_position: bigint;
  readonly stream_id: string;
  readonly stream_revision: bigint;
  readonly event_id: string;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
  readonly created_at: string;
}

export const EVENT_COLUMNS =
  'global_position, stream_id, stream_revision, event_id, type, data, metadata, created_at';

/** The largest SQLite integer, used as an open upper bound. */
export const MAX_SQLITE_INTEGER = 9_223_372_036_854_775_807n;

export function recordedEventFromRow(row: EventRow): RecordedEvent {
  return Object.freeze({
    streamId: row.stream_id,
    id: row.event_id,
    type: row.type,
    data: deepFreeze(fromJsonText(row.data)),
    metadata: deepFreeze(toJsonRecord(fromJsonText(row.metadata))),
    revision: row.stream_revision,
    position: row.global_position,
    createdAt: row.created_at,
  });
}

type RangeParameter = bigint | string | number;

/** A read of the global log between two exclusive position bounds. */
export interface LogRangeQuery {
  readonly direction: 'forwards' | 'backwards';
  readonly after: bigint;
  readonly before: bigint;
  readonly limit: number;
  readonly filter: EventFilter | undefined;
}

/** Builds (and caches by shape) the statements that read ranges of the global log. */
export class LogRangeReader {
  private readonly statements = new Map<string, Database.Statement<RangeParameter[], EventRow>>();

  constructor(private readonly database: Database.Database) {}

  read(query: LogRangeQuery): readonly EventRow[] {
    const exactTypes = (query.filter?.eventTypes ?? []).filter((pattern) => !pattern.endsWith('*'));
    const typePrefixes = (query.filter?.eventTypes ?? [])
      .filter((pattern) => pattern.endsWith('*'))
      .map((pattern) => pattern.slice(0, -1));
    const streamPrefixes = query.filter?.streamPrefixes ?? [];
    const statement = this.statementFor(
      query.direction,
      exactTypes.length,
      typePrefixes.length,
      streamPrefixes.length,
    );
    return statement.all(
      query.after,
      query.before,
      ...exactTypes,
      ...typePrefixes,
      ...streamPrefixes,
      query.limit,
    );
  }

  private statementFor(
    direction: 'forwards' | 'backwards',
    exactTypeCount: number,
    typePrefixCount: number,
    streamPrefixCount: number,
  ): Database.Statement<RangeParameter[], EventRow> {
    const key = `${direction}:${exactTypeCount}:${typePrefixCount}:${streamPrefixCount}`;
    const cached = this.statements.get(key);
    if (cached !== undefined) return cached;
    const conditions = ['global_position > ?', 'global_position < ?'];
    const typeAlternatives = [
      ...(exactTypeCount > 0 ? [`type IN (${placeholders(exactTypeCount)})`] : []),
      ...Array.from({ length: typePrefixCount }, () => 'instr(type, ?) = 1'),
    ];
    if (typeAlternatives.length > 0) conditions.push(`(${typeAlternatives.join(' OR ')})`);
    if (streamPrefixCount > 0) {
      const streamAlternatives = Array.from({ length: streamPrefixCount }, () => 'instr(stream_id, ?) = 1');
      conditions.push(`(${streamAlternatives.join(' OR ')})`);
    }
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
