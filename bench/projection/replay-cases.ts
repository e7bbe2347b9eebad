// The replay cases of suite `projection` (issue 22): `strata replay` (catalog, audit and search
// rebuilt from the log, run in-process through the command itself), a rebuild of catalog +
// audit alone and `strata verify --all`'s work with the signed log (issue 24), against a bare SELECT of every event with raw better-sqlite3 and against the
// store's own `readAll`, on one store of many sessions (replay-store.ts).
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '@strata/event-store';
import {
  createProjectionSet,
  sqliteProjectionStorage,
  type ProjectionSet,
  type ProjectionStorage,
} from '@strata/projections';
import {
  anchorLogOf,
  generateAnchorSigningKey,
  verifyStoreWithLog,
  writeCheckpoint,
  type AnchorPublicKey,
} from '@strata/integrity';
import { charsPerFourCounter } from '@strata/session';
import { replayCommand } from '../../apps/cli/src/commands/replay.command';
import type { CliIo } from '../../apps/cli/src/cli-io';
import type { BenchCase } from '../harness';

export interface ReplayCaseOptions {
  readonly storeFile: string;
  readonly scratchDirectory: string;
  readonly events: number;
}

/** Signs a checkpoint of the whole store into its log (its genesis), and returns the keys that check it. */
export async function checkpointReplayStore(storeFile: string): Promise<Map<string, AnchorPublicKey>> {
  const key = generateAnchorSigningKey();
  const store = new SqliteEventStore({ filename: storeFile });
  try {
    await writeCheckpoint(store, anchorLogOf(store), key);
  } finally {
    await store.close();
  }
  return new Map([[key.keyId, { keyId: key.keyId, publicKey: key.publicKey }]]);
}

/** `strata verify --all`'s work: every chain, held against every head the store's checkpoint recorded. */
async function verifyAll(storeFile: string, keys: ReadonlyMap<string, AnchorPublicKey>): Promise<void> {
  const store = new SqliteEventStore({ filename: storeFile });
  try {
    const result = await verifyStoreWithLog(store, { keys });
    if (!result.ok) throw new Error('the replay store did not verify');
  } finally {
    await store.close();
  }
}

/** Reads every row of the events table in log order, every column, as the store's reads do. */
function bareSelect(storeFile: string): number {
  const database = new Database(storeFile, { readonly: true });
  try {
    database.defaultSafeIntegers(true);
    let rows = 0;
    const statement = database.prepare(
      'SELECT global_position, stream_id, stream_revision, event_id, type, data, metadata, created_at FROM events ORDER BY global_position',
    );
    for (const row of statement.iterate()) if (row !== undefined) rows += 1;
    return rows;
  } finally {
    database.close();
  }
}

async function readAll(storeFile: string): Promise<number> {
  const store = new SqliteEventStore({ filename: storeFile });
  try {
    let count = 0;
    for await (const recorded of store.readAll()) if (recorded.type !== '') count += 1;
    return count;
  } finally {
    await store.close();
  }
}

const quietIo = (cwd: string): CliIo => ({
  stdout: () => undefined,
  stderr: () => undefined,
  env: {},
  cwd,
});

export function replayCases(
  options: ReplayCaseOptions & { readonly keys: ReadonlyMap<string, AnchorPublicKey> },
): BenchCase<unknown>[] {
  const { storeFile, scratchDirectory, events, keys } = options;
  const group = `replay of the whole log (${events.toLocaleString('en-US')} events)`;
  const details = { events };
  let round = 0;
  const shared = { group, unit: 'event', operationsPerIteration: events, details } as const;
  const select: BenchCase<void> = {
    ...shared,
    name: 'projection/replay/bare-select',
    role: 'baseline',
    label: 'bare SELECT of every event (raw better-sqlite3)',
    run: () => bareSelect(storeFile),
  };
  const storeReadAll: BenchCase<void> = {
    ...shared,
    name: 'projection/replay/read-all',
    role: 'baseline',
    label: 'read every event (readAll), nothing else',
    run: () => readAll(storeFile),
  };
  const strataReplay: BenchCase<void> = {
    ...shared,
    name: 'projection/replay/strata-replay',
    role: 'subject',
    label: 'strata replay (catalog, audit, search into the store file)',
    run: async () => {
      const code = await replayCommand.run(['--store', `sqlite:${storeFile}`], quietIo(scratchDirectory));
      if (code !== 0) throw new Error(`strata replay ended with ${code}`);
    },
  };
  interface Rebuild {
    readonly store: SqliteEventStore;
    readonly storage: ProjectionStorage;
    readonly set: ProjectionSet;
  }
  const catalogAudit: BenchCase<Rebuild> = {
    ...shared,
    name: 'projection/replay/rebuild-catalog-audit',
    role: 'subject',
    label: 'runner.rebuild() of catalog + audit (SQLite documents)',
    setup: () => {
      round += 1;
      const store = new SqliteEventStore({ filename: storeFile });
      const storage = sqliteProjectionStorage(path.join(scratchDirectory, `projections-${round}.db`));
      const set = createProjectionSet({
        store,
        storage,
        tokenCounter: charsPerFourCounter,
        include: ['catalog', 'audit'],
      });
      return { store, storage, set };
    },
    run: ({ set }) => set.runner.rebuild(),
    teardown: async ({ store, storage }) => {
      await storage.close();
      await store.close();
    },
  };
  const verify: BenchCase<void> = {
    ...shared,
    name: 'projection/replay/verify-all',
    role: 'subject',
    label: 'strata verify --all (every chain, the signed log and its checkpoint heads)',
    run: () => verifyAll(storeFile, keys),
  };
  return [select, storeReadAll, strataReplay, catalogAudit, verify] as BenchCase<unknown>[];
}
