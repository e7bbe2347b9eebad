// The changes a checkpoint records, read on a SQLite file inside the writer's transaction (see
// store-changes.ts): the heads of the streams written after a global position, the streams erased
// since (whose erasure-log events lie after it and who hold no event now), and the live streams
// and their events counted from the `streams` table. Nothing is written.
import type { SqliteWriteContext, SqliteWriteOperations, WriteOperation } from '@strata/event-store';

interface HeadRow {
  readonly stream_id: string;
  readonly stream_revision: bigint;
  readonly hash: unknown;
}

const HASH_PATTERN = /^[0-9a-f]{64}$/;

function storeChangesSince(
  { statement }: SqliteWriteContext,
  args: { readonly from: bigint; readonly erasureStream: string },
): unknown {
  const { from, erasureStream } = args;
  const head = statement<[], { head: bigint | null }>('SELECT max(global_position) AS head FROM events')
    .safeIntegers(true)
    .get();
  const storePosition = head?.head ?? -1n;
  const headRows = statement<[bigint, bigint, string], HeadRow>(
    `SELECT e.stream_id, e.stream_revision, json_extract(e.metadata, '$.hash') AS hash
       FROM events e
       JOIN (SELECT stream_id, max(stream_revision) AS revision FROM events
              WHERE global_position > ? AND global_position <= ? AND stream_id <> ?
              GROUP BY stream_id) last
         ON e.stream_id = last.stream_id AND e.stream_revision = last.revision
      ORDER BY e.stream_id`,
  )
    .safeIntegers(true)
    .all(from, storePosition, erasureStream);
  const heads = headRows.map((row) => ({
    stream: row.stream_id,
    revision: row.stream_revision.toString(),
    headHash: typeof row.hash === 'string' && HASH_PATTERN.test(row.hash) ? row.hash : null,
  }));
  const written = new Set(heads.map((item) => item.stream));
  const erasedRows = statement<[string, bigint, bigint], { stream_id: unknown }>(
    `SELECT json_extract(data, '$.streamId') AS stream_id FROM events
      WHERE stream_id = ? AND global_position > ? AND global_position <= ? ORDER BY global_position`,
  ).all(erasureStream, from, storePosition);
  const erased = [
    ...new Set(
      erasedRows
        .map((row) => row.stream_id)
        .filter((stream): stream is string => typeof stream === 'string' && !written.has(stream)),
    ),
  ].sort();
  const counts = statement<[string], { streams: bigint; events: bigint | null }>(
    'SELECT count(*) AS streams, sum(last_revision + 1) AS events FROM streams WHERE erased = 0 AND stream_id <> ?',
  )
    .safeIntegers(true)
    .get(erasureStream);
  return {
    storePosition,
    heads,
    erased,
    streams: Number(counts?.streams ?? 0n),
    events: counts?.events ?? 0n,
  };
}

/** @public The writer thread requires this module by path and takes this export by name. */
export const sqliteWriteOperations: SqliteWriteOperations = { storeChangesSince };

export const storeChangeWrites = {
  storeChangesSince: { module: __filename, operation: 'storeChangesSince' },
} as const satisfies Readonly<Record<string, WriteOperation>>;
