// Exporting a stored session as a pi v3 JSONL file: the header line, then every entry in
// append order. Engine facts that pi keeps only in memory (leaf moves, pruning, attempts) have
// no place in the file and are left out.
import { serializeSessionFile } from '@strata/session';
import type { EventStore } from '../port';
import { loadSession } from './session-repository';

/** The session as v3 JSONL text; throws `SessionNotFoundError` when it is not stored. */
export async function exportSession(store: EventStore, sessionId: string): Promise<string> {
  const session = await loadSession(store, sessionId);
  return serializeSessionFile(session.header, session.entries);
}
