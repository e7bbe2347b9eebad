// What the failure tests check on a store after the engine died: the SQLite file is sound,
// every session stream's hash chain verifies, every event parses as a whole session event,
// every attempt has ended, and the projections the engine kept equal a rebuild from the log.
import Database from 'better-sqlite3';
import { SqliteEventStore, type EventStore } from '@strata/event-store';
import { verifyAll } from '@strata/integrity';
import { loadSession, parseStoredSessionEvent } from '@strata/session-files';
import { createProjectionSet, inMemoryProjectionStorage, sqliteProjectionStorage } from '@strata/projections';
import { SESSION_STREAM_PREFIX, charsPerFourCounter, type SessionAttempt } from '@strata/session';

export interface StoreHealth {
  readonly integrity: string;
  readonly sessions: readonly string[];
  readonly events: number;
  readonly brokenStreams: number;
  /** Attempts started and not ended, as `session/attempt`. */
  readonly openAttempts: readonly string[];
  readonly attempts: readonly SessionAttempt[];
}

/** Reads the store file with a connection of its own (the engine may be running or dead). */
export async function storeHealth(storeFile: string): Promise<StoreHealth> {
  const database = new Database(storeFile, { readonly: true });
  const integrity = String(database.pragma('integrity_check', { simple: true }));
  database.close();
  const store = new SqliteEventStore({ filename: storeFile });
  try {
    const sessions = new Set<string>();
    let events = 0;
    for await (const recorded of store.readAll({ filter: { streamPrefixes: [SESSION_STREAM_PREFIX] } })) {
      parseStoredSessionEvent(recorded);
      sessions.add(recorded.streamId.slice(SESSION_STREAM_PREFIX.length));
      events += 1;
    }
    const verification = await verifyAll(store, { filter: { streamPrefixes: [SESSION_STREAM_PREFIX] } });
    const attempts: SessionAttempt[] = [];
    for (const sessionId of sessions)
      attempts.push(...(await loadSession(store, sessionId)).state.attempts());
    return {
      integrity,
      sessions: [...sessions].sort(),
      events,
      brokenStreams: verification.broken.length,
      openAttempts: attempts
        .filter((attempt) => attempt.outcome === null)
        .map((attempt) => attempt.attemptId),
      attempts,
    };
  } finally {
    await store.close();
  }
}

async function rebuiltDocuments(store: EventStore) {
  const storage = inMemoryProjectionStorage();
  const projections = createProjectionSet({
    store,
    storage,
    tokenCounter: charsPerFourCounter,
    include: ['catalog', 'audit'],
  });
  await projections.runner.start();
  await projections.runner.whenCaughtUp();
  await projections.runner.stop();
  return {
    catalog: (await storage.catalog.listSessions({ tenant: 'default', limit: 500 })).items,
    audit: (await storage.audit.listAttempts({ tenant: 'default', limit: 500 })).items,
  };
}

/**
 * The catalog and audit documents the engine kept in the store file (with its checkpoints,
 * through the crash) and the same documents rebuilt from the log. Read while the engine is down.
 */
export async function keptAndRebuiltProjections(storeFile: string) {
  const kept = sqliteProjectionStorage(storeFile);
  const store = new SqliteEventStore({ filename: storeFile });
  try {
    return {
      kept: {
        catalog: (await kept.catalog.listSessions({ tenant: 'default', limit: 500 })).items,
        audit: (await kept.audit.listAttempts({ tenant: 'default', limit: 500 })).items,
      },
      rebuilt: await rebuiltDocuments(store),
    };
  } finally {
    await kept.close();
    await store.close();
  }
}
