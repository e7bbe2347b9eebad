// Exporting a stored session as a pi v3 JSONL file: the header line, then every entry in
// append order. Engine facts that pi keeps only in memory (leaf moves, pruning, attempts) have
// no place in the file and are left out. A session converted from a Claude Code or Codex
// transcript can also be written back as its original file.
import { originalFileOf, serializeSessionFile, type OriginalFile } from '@strata/session';
import type { EventStore } from '@strata/event-store';
import { loadSession } from './session-repository';

/** The session as v3 JSONL text; throws `SessionNotFoundError` when it is not stored. */
export async function exportSession(store: EventStore, sessionId: string): Promise<string> {
  const session = await loadSession(store, sessionId);
  return serializeSessionFile(session.header, session.entries);
}

/**
 * The original file of a session imported from a Claude Code or Codex transcript, byte for byte
 * (its entries keep their lines). Throws `SessionNotFoundError`, or `OriginalFileUnavailableError`
 * for a session that was not converted from a transcript.
 */
export async function exportOriginalFile(store: EventStore, sessionId: string): Promise<OriginalFile> {
  const session = await loadSession(store, sessionId);
  return originalFileOf(session.header, session.entries);
}
