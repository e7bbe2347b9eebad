// The signed log of a SQLite store (decision 0018): anchors signed before the log was chained in
// the `anchors` table (read only), chained entries in `store_log`, written through the file's
// writer (sqlite-log-writes.ts). Reads are paged on the store's reading connection, so a long
// log is never held in memory; a row that does not hold a log entry is read as unreadable (the
// verification names it) rather than skipped.
import type Database from 'better-sqlite3';
import type { SqliteWriter } from '@strata/event-store';
import type { Anchor } from '../anchors/anchor';
import { parseLogEntryText, type CheckpointLogEntry, type LogEntry } from './log-entry';
import {
  anchorSelected,
  LAST_LOG_POSITION,
  type LoggedItem,
  type LogHead,
  type LogRead,
  type LogStorage,
  type WriteOutcome,
} from './log-storage';
import { logWrites, sqliteLogHead, type LogRowToAppend } from './sqlite-log-writes';

const PAGE_SIZE = 500;

interface LegacyRow {
  readonly anchor_id: bigint;
  readonly stream_id: string;
  readonly revision: bigint;
  readonly head_hash: string;
  readonly signed_at: string;
  readonly key_id: string;
  readonly signature: string;
  readonly tenant: string | null;
}

interface LogRow {
  readonly position: bigint;
  readonly tenant: string | null;
  readonly entry: string;
}

function legacyAnchor(row: LegacyRow): Anchor & { position: string } {
  return {
    stream: row.stream_id,
    revision: row.revision.toString(),
    headHash: row.head_hash,
    time: row.signed_at,
    keyId: row.key_id,
    signature: row.signature,
    position: row.anchor_id.toString(),
  };
}

export class SqliteLogStorage implements LogStorage {
  constructor(
    private readonly database: Database.Database,
    private readonly writer: SqliteWriter,
  ) {}

  head(): Promise<LogHead> {
    return Promise.resolve(sqliteLogHead(this.database));
  }

  async writeIfHead(
    expected: LogHead,
    entries: readonly { readonly entry: LogEntry; readonly tenant: string | undefined }[],
  ): Promise<WriteOutcome> {
    const rows = entries.map(({ entry, tenant }): LogRowToAppend => {
      const text = JSON.stringify(entry);
      return {
        position: BigInt(entry.position),
        kind: entry.kind,
        streamId: entry.kind === 'anchor' ? entry.stream : entry.kind === 'erasure' ? entry.streamId : null,
        tenant: tenant ?? null,
        hash: entry.hash,
        entry: text,
      };
    });
    const bytes = rows.reduce((total, row) => total + row.entry.length + 64, 0);
    return this.writer.write<WriteOutcome>(logWrites.appendLogEntries, { expected, rows }, bytes);
  }

  lastCheckpoint(): Promise<CheckpointLogEntry | undefined> {
    if (!this.hasTable('store_log')) return Promise.resolve(undefined);
    const row = this.database
      .prepare<[], LogRow>(
        "SELECT position, tenant, entry FROM store_log WHERE kind = 'checkpoint' ORDER BY position DESC LIMIT 1",
      )
      .safeIntegers(true)
      .get();
    if (row === undefined) return Promise.resolve(undefined);
    const parsed = parseLogEntryText(row.position, row.entry);
    return Promise.resolve(typeof parsed === 'string' || parsed.kind !== 'checkpoint' ? undefined : parsed);
  }

  private hasTable(name: string): boolean {
    return (
      this.database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !==
      undefined
    );
  }

  async *entries(after: bigint): AsyncIterable<LoggedItem> {
    if (after >= LAST_LOG_POSITION) return;
    for await (const row of this.legacyRows(after, '', [])) {
      yield {
        source: 'legacy',
        entry: legacyAnchor(row),
        ...(row.tenant !== null ? { tenant: row.tenant } : {}),
      };
    }
    for await (const row of this.logRows(after, '', [])) {
      const parsed = parseLogEntryText(row.position, row.entry);
      if (typeof parsed === 'string') {
        yield { source: 'unreadable', position: row.position.toString(), reason: parsed };
        continue;
      }
      yield { source: 'chained', entry: parsed, ...(row.tenant !== null ? { tenant: row.tenant } : {}) };
    }
  }

  async *anchors(query: LogRead): AsyncIterable<Anchor & { readonly position: string }> {
    const after = query.after ?? 0n;
    if (after >= LAST_LOG_POSITION) return;
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    if (query.streamId !== undefined) {
      conditions.push('stream_id = ?');
      parameters.push(query.streamId);
    }
    if (query.tenant !== undefined) {
      conditions.push('tenant = ?');
      parameters.push(query.tenant);
    }
    const extra = conditions.map((condition) => ` AND ${condition}`).join('');
    for await (const row of this.legacyRows(after, extra, parameters)) {
      const anchor = legacyAnchor(row);
      if (anchorSelected(anchor, row.tenant ?? undefined, query)) yield anchor;
    }
    for await (const row of this.logRows(after, `${extra} AND kind = 'anchor'`, parameters)) {
      const parsed = parseLogEntryText(row.position, row.entry);
      if (typeof parsed === 'string' || parsed.kind !== 'anchor') continue;
      if (anchorSelected(parsed, row.tenant ?? undefined, query)) yield parsed;
    }
  }

  private async *legacyRows(
    after: bigint,
    extra: string,
    parameters: readonly unknown[],
  ): AsyncGenerator<LegacyRow> {
    if (!this.hasTable('anchors')) return;
    const statement = this.database.prepare<unknown[], LegacyRow>(
      `SELECT * FROM anchors WHERE anchor_id > ?${extra} ORDER BY anchor_id LIMIT ${PAGE_SIZE}`,
    );
    yield* pages(
      after,
      (from) => statement.safeIntegers(true).all(from, ...parameters),
      (row) => row.anchor_id,
    );
  }

  private async *logRows(
    after: bigint,
    extra: string,
    parameters: readonly unknown[],
  ): AsyncGenerator<LogRow> {
    if (!this.hasTable('store_log')) return;
    const statement = this.database.prepare<unknown[], LogRow>(
      `SELECT position, tenant, entry FROM store_log WHERE position > ?${extra} ORDER BY position LIMIT ${PAGE_SIZE}`,
    );
    yield* pages(
      after,
      (from) => statement.safeIntegers(true).all(from, ...parameters),
      (row) => row.position,
    );
  }
}

async function* pages<Row>(
  after: bigint,
  page: (from: bigint) => Row[],
  positionOf: (row: Row) => bigint,
): AsyncGenerator<Row> {
  let from = after;
  for (;;) {
    await Promise.resolve();
    const rows = page(from);
    yield* rows;
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < PAGE_SIZE) return;
    from = positionOf(last);
  }
}
