// The tasks of an HTTP import that run on the engine's worker threads (SessionImportWork): the
// file is parsed, checked, weighed and, for a new session, decided, sealed and encoded there, so
// the event loop that answers every tenant only moves the finished text to the store's writer.
import {
  encodeNewSessionImport,
  prepareSessionImport,
  type EncodeSessionImportOptions,
  type EncodedSessionImport,
  type PrepareSessionImportOptions,
  type PreparedSessionImport,
} from '@strata/session-files';
import { sharedUtf8Text } from '@strata/event-store';
import { entryWeight, type SessionFileContent } from '@strata/session';

export interface ImportFileArgs {
  readonly file: SessionFileContent;
  readonly options: PrepareSessionImportOptions;
}

export interface EncodeImportArgs extends ImportFileArgs {
  readonly write: EncodeSessionImportOptions;
  /** The engine's bound on one session's entries: a heavier file is weighed, not encoded. */
  readonly maxSessionEntries: number;
}

export type EncodedImportAnswer =
  | { readonly kind: 'too_large'; readonly sessionId: string; readonly weight: number }
  | { readonly kind: 'encoded'; readonly weight: number; readonly encoded: EncodedSessionImport };

export function weightOfEntries(entries: PreparedSessionImport['entries']): number {
  return entries.reduce((total, entry) => total + entryWeight(entry), 0);
}

/** Parses and checks a file (any format, strict or lenient, whole or a part). */
export function prepareImportFile(args: ImportFileArgs): PreparedSessionImport {
  return prepareSessionImport(args.file, args.options);
}

/** Event data from this length on goes back as UTF-8 in shared memory (stored-text.ts), not copied. */
export const SHARED_DATA_CHARS = 16 * 1024;

/**
 * Parses, checks and weighs a whole file, then decides, seals and encodes it as a new session.
 * The data of large events is handed back in shared memory: it goes on to the store's writer
 * thread without the event loop copying it (a 60 MB file was two copies there, in one turn each).
 */
export async function encodeImportFile(args: EncodeImportArgs): Promise<EncodedImportAnswer> {
  const prepared = prepareSessionImport(args.file, args.options);
  const weight = weightOfEntries(prepared.entries);
  if (weight > args.maxSessionEntries) return { kind: 'too_large', sessionId: prepared.header.id, weight };
  const encoded = await encodeNewSessionImport(prepared, args.write);
  const events = encoded.events.map((event) =>
    typeof event.data === 'string' && event.data.length >= SHARED_DATA_CHARS
      ? { ...event, data: sharedUtf8Text(event.data) }
      : event,
  );
  return { kind: 'encoded', weight, encoded: { ...encoded, events } };
}
