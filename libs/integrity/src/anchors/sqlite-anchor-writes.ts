// The anchor log's one write on a SQLite file, as an operation of the file's writer: the
// `anchors` table is made by the first append (a store that never anchored stays as it was), then
// the batch of anchors is inserted.
import type { SqliteWriteContext, SqliteWriteOperations, WriteOperation } from '@strata/event-store';

export const SQLITE_ANCHOR_SCHEMA = `
CREATE TABLE IF NOT EXISTS anchors (
  anchor_id INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  head_hash TEXT NOT NULL,
  signed_at TEXT NOT NULL,
  key_id TEXT NOT NULL,
  signature TEXT NOT NULL,
  tenant TEXT
);
CREATE INDEX IF NOT EXISTS anchors_by_stream ON anchors (stream_id, anchor_id);
CREATE INDEX IF NOT EXISTS anchors_by_tenant ON anchors (tenant, anchor_id);
`;

/** An anchor as its row. */
export interface AnchorRowToAppend {
  readonly streamId: string;
  readonly revision: bigint;
  readonly headHash: string;
  readonly signedAt: string;
  readonly keyId: string;
  readonly signature: string;
  readonly tenant: string | null;
}

const tablesMade = new WeakSet<object>();

function appendAnchors(
  { database, statement }: SqliteWriteContext,
  args: { readonly rows: readonly AnchorRowToAppend[] },
): void {
  if (!tablesMade.has(database)) {
    database.exec(SQLITE_ANCHOR_SCHEMA);
    tablesMade.add(database);
  }
  const insert = statement(
    'INSERT INTO anchors (stream_id, revision, head_hash, signed_at, key_id, signature, tenant) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  for (const row of args.rows) {
    insert.run(row.streamId, row.revision, row.headHash, row.signedAt, row.keyId, row.signature, row.tenant);
  }
}

/** @public The writer thread requires this module by path and takes this export by name. */
export const sqliteWriteOperations: SqliteWriteOperations = { appendAnchors };

export const anchorWrites = {
  appendAnchors: { module: __filename, operation: 'appendAnchors' },
} as const satisfies Readonly<Record<string, WriteOperation>>;
