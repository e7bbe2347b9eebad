// Where the durable projections keep their documents and checkpoints, behind one small
// interface: in memory for tests, or SQLite (better-sqlite3). For a SQLite event store the
// projection tables live in the same database file (their own connection); for EventStoreDB
// they go to a local SQLite file (`./data/projections.db` by default). Checkpoints are kept in
// the same database as the documents, so the two are lost or kept together, and so are the
// sessions the read models set aside.
import { isAbsolute, resolve } from 'node:path';
import {
  InMemoryCheckpointStore,
  SqliteCheckpointStore,
  databaseKey,
  openSqliteWriter,
  openStrataDatabase,
  parseStoreUrl,
  type CheckpointStore,
  type SqliteSettings,
} from '@strata/event-store';
import { InMemoryParkedPartitionStore, type ParkedPartitionStore } from '@strata/processing';
import { InMemoryAuditStorage } from '../audit/in-memory-audit-storage';
import type { AuditStorage } from '../audit/audit-storage';
import { SqliteAuditStorage } from '../audit/sqlite-audit-storage';
import type { CatalogStorage } from '../catalog/catalog-storage';
import { InMemoryCatalogStorage } from '../catalog/in-memory-catalog-storage';
import { SqliteCatalogStorage } from '../catalog/sqlite-catalog-storage';
import { SqliteParkedPartitionStore } from './sqlite-parked-partitions';
import { InMemorySearchStorage } from '../search/in-memory-search-storage';
import type { SearchStorage } from '../search/search-storage';
import { SqliteSearchStorage } from '../search/sqlite-search-storage';
import { InMemoryTokenCountStorage, type TokenCountStorage } from '../context/token-count-storage';
import { SqliteTokenCountStorage } from '../context/sqlite-token-count-storage';
import type { SessionSnapshotStorage } from '../context/snapshot-storage';
import { SqliteSnapshotStorage } from '../context/sqlite-snapshot-storage';

export const DEFAULT_PROJECTIONS_DATABASE = './data/projections.db';

export interface ProjectionStorage {
  readonly catalog: CatalogStorage;
  readonly audit: AuditStorage;
  /** The session search's index (entry texts by session and tenant). */
  readonly search: SearchStorage;
  /** The context projection's stored token counts (none: every hydration counts its entries). */
  readonly tokenCounts?: TokenCountStorage;
  /** The context projection's session snapshots (none: every hydration reads all the events). */
  readonly contextSnapshots?: SessionSnapshotStorage;
  readonly checkpoints: CheckpointStore;
  /** The sessions the read models have set aside (kept with the checkpoints). */
  readonly parked: ParkedPartitionStore;
  /** Where it is, for messages: `memory` or the database file. */
  readonly location: string;
  close(): Promise<void>;
}

export function inMemoryProjectionStorage(): ProjectionStorage {
  return {
    catalog: new InMemoryCatalogStorage(),
    audit: new InMemoryAuditStorage(),
    search: new InMemorySearchStorage(),
    tokenCounts: new InMemoryTokenCountStorage(),
    // No snapshots: nothing in memory outlives the process, and they would copy every session held.
    checkpoints: new InMemoryCheckpointStore(),
    parked: new InMemoryParkedPartitionStore(),
    location: 'memory',
    close: () => Promise.resolve(),
  };
}

/**
 * Opens (creating when needed) the projection tables and checkpoints in a SQLite database file:
 * reads on a connection of this thread, writes through the file's writer (shared with the event
 * store when the file is the store's).
 */
export function sqliteProjectionStorage(
  filename: string,
  settings: Partial<SqliteSettings> = {},
): ProjectionStorage {
  const database = openStrataDatabase({ filename });
  const writer = openSqliteWriter(database, databaseKey(filename), { ...settings, guardAfter: false });
  try {
    const storage: ProjectionStorage = {
      catalog: new SqliteCatalogStorage(database, writer),
      audit: new SqliteAuditStorage(database, writer),
      search: new SqliteSearchStorage(database, writer),
      tokenCounts: new SqliteTokenCountStorage(database, writer),
      contextSnapshots: new SqliteSnapshotStorage(database, writer),
      checkpoints: new SqliteCheckpointStore(database, writer),
      parked: new SqliteParkedPartitionStore(database, writer),
      location: filename,
      close: async () => {
        await writer.close();
        database.close();
      },
    };
    if (filename !== ':memory:') database.pragma('query_only = ON');
    return storage;
  } catch (error) {
    void writer.close();
    database.close();
    throw error;
  }
}

export interface OpenProjectionStorageOptions {
  /** Base of relative paths; the process's working directory by default. */
  readonly cwd?: string;
  /** The SQLite file for EventStoreDB stores (or to override the store's own file). */
  readonly projectionsDatabase?: string;
  /** How the SQLite file is written (see `sqliteSettingsOf`). */
  readonly sqlite?: Partial<SqliteSettings>;
}

/** The projection storage that goes with a store URL (see the module header). The caller closes it. */
export function openProjectionStorage(
  storeUrl: string,
  options: OpenProjectionStorageOptions = {},
): ProjectionStorage {
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.projectionsDatabase;
  if (explicit !== undefined)
    return sqliteProjectionStorage(isAbsolute(explicit) ? explicit : resolve(cwd, explicit), options.sqlite);
  const location = parseStoreUrl(storeUrl, cwd);
  switch (location.kind) {
    case 'sqlite':
      return location.filename === ':memory:'
        ? inMemoryProjectionStorage()
        : sqliteProjectionStorage(location.filename, options.sqlite);
    case 'memory':
      return inMemoryProjectionStorage();
    case 'esdb':
      return sqliteProjectionStorage(resolve(cwd, DEFAULT_PROJECTIONS_DATABASE), options.sqlite);
    default: {
      const unhandled: never = location;
      throw new Error(`unhandled store location ${JSON.stringify(unhandled)}`);
    }
  }
}
