// The context projection's stored token counts in SQLite: one row per counted entry, keyed by
// session, counter key and the hash of the event that recorded the entry (token-count-storage.ts
// says why a row cannot describe another entry). Reads on this thread's connection; writes
// through the file's writer (storage/sqlite-projection-writes.ts), in the batches the
// projection saves behind its reads.
import type Database from 'better-sqlite3';
import type { SqliteWriter } from '@strata/event-store';
import { settle } from '../storage/settle';
import { projectionWrites } from '../storage/sqlite-projection-writes';
import {
  readStoredCounts,
  type StoredTokenCount,
  type TokenCountRow,
  type TokenCountStorage,
} from './token-count-storage';

const TOKEN_COUNTS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS projection_context_token_counts (
  session_id TEXT NOT NULL,
  counter_key TEXT NOT NULL,
  event_hash TEXT NOT NULL,
  characters INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  PRIMARY KEY (session_id, counter_key, event_hash)
) WITHOUT ROWID`;

export class SqliteTokenCountStorage implements TokenCountStorage {
  private selectCounts: Database.Statement<[string, string], unknown> | undefined;

  /** Reads on `database` and writes through `writer` (the caller closes both); creates the table when missing. */
  constructor(
    private readonly database: Database.Database,
    private readonly writer: SqliteWriter,
  ) {
    database.exec(TOKEN_COUNTS_TABLE_SQL);
  }

  /** Rejects when the table cannot be read as counts (the projection then counts). */
  load(sessionId: string, counterKey: string): Promise<ReadonlyMap<string, StoredTokenCount>> {
    return settle(() => {
      this.selectCounts ??= this.database
        .prepare<[string, string], unknown>(
          `SELECT event_hash AS eventHash, characters, tokens FROM projection_context_token_counts
           WHERE session_id = ? AND counter_key = ?`,
        )
        .safeIntegers(false);
      return readStoredCounts(this.selectCounts.all(sessionId, counterKey));
    });
  }

  async save(rows: readonly TokenCountRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.writer.write(projectionWrites.saveTokenCounts, { rows }, rows.length * 96);
  }

  forgetSession(sessionId: string): Promise<void> {
    return this.writer.write(projectionWrites.forgetTokenCounts, { sessionId });
  }
}
