// Importing a pi session file (any version, migrated to v3) as the stream `session-<id>`: one
// atomic append through the generic command handler and the import decision, with event ids
// derived from the session id and each entry id, so importing the same file again writes
// nothing. Nothing is written for a file with a bad line unless the import is lenient.
import {
  parseSessionFile,
  SessionFileError,
  sessionStreamName,
  type SessionEvent,
  type SessionFileProblem,
  type SessionFileVersion,
} from '@strata/session';
import { derivedEventId } from '../command-handling/derived-event-id';
import { handleCommand, type StreamAppender } from '../command-handling/handle-command';
import type { EventStore } from '../port';
import { checkEntryReferences, entryLineNumbers } from './entry-references';
import { importDecider } from './import-decision';
import { parseStoredSessionEvent } from './session-repository';
import { SessionImportError } from './session-store-errors';

/** Progress is reported after parsing and every `PROGRESS_INTERVAL` events prepared. */
export const PROGRESS_INTERVAL = 10_000;

export type ImportProgress =
  | { readonly kind: 'parsed'; readonly sessionId: string; readonly entryCount: number }
  | { readonly kind: 'prepared'; readonly sessionId: string; readonly eventCount: number };

export interface ImportSessionOptions {
  /** Skip bad lines (and report them) instead of refusing the file. */
  readonly lenient?: boolean;
  /** Who imports: written into each event's metadata. */
  readonly actor?: string;
  readonly tenant?: string;
  /** The session id when the header has none (for instance from the file name). */
  readonly sessionIdFallback?: string;
  readonly onProgress?: (progress: ImportProgress) => void;
  /** How events reach the store (the integrity layer's sealing appender by default). */
  readonly appender?: StreamAppender;
}

export interface SessionImportReport {
  readonly sessionId: string;
  readonly streamId: string;
  /** `unchanged`: the store already held this session exactly; nothing was written. */
  readonly outcome: 'imported' | 'unchanged';
  readonly entryCount: number;
  /** Events written by this import (0 when unchanged). */
  readonly eventsWritten: number;
  /** The revision of the stream's last event. */
  readonly revision: bigint;
  readonly sourceVersion: SessionFileVersion;
  readonly migrated: boolean;
  /** Lines left out (lenient only). */
  readonly skipped: readonly SessionFileProblem[];
  /** Lines imported with a repair (lenient only). */
  readonly repaired: readonly SessionFileProblem[];
}

/** The id of an imported event: the same session and entry always give the same id. */
export function importedEventId(sessionId: string, event: SessionEvent): string {
  if (event.type === 'SessionStarted') return derivedEventId(`import/${sessionId}/header`, 0);
  if (event.type === 'EntryAppended')
    return derivedEventId(`import/${sessionId}/entry/${event.data.entry.id}`, 0);
  if (event.type === 'LeafMoved')
    return derivedEventId(`import/${sessionId}/leaf/${event.data.leafId ?? 'null'}`, 0);
  throw new Error(`an import does not write ${event.type} events`);
}

function parseFile(text: string, options: ImportSessionOptions) {
  try {
    return parseSessionFile(text, {
      mode: options.lenient ? 'lenient' : 'strict',
      ...(options.sessionIdFallback !== undefined ? { sessionIdFallback: options.sessionIdFallback } : {}),
    });
  } catch (error) {
    if (error instanceof SessionFileError) throw new SessionImportError(error.line, error.code, error.reason);
    throw error;
  }
}

/**
 * Imports one session file. Throws `SessionImportError` (the line and why) for a bad file and
 * `SessionImportConflictError` when the stream holds different content; in both cases nothing
 * is written.
 */
export async function importSessionFile(
  store: EventStore,
  text: string,
  options: ImportSessionOptions = {},
): Promise<SessionImportReport> {
  const parsed = parseFile(text, options);
  const lenient = options.lenient ?? false;
  const checked = checkEntryReferences(parsed.entries, entryLineNumbers(text, parsed.skipped), lenient);
  const sessionId = parsed.header.id;
  options.onProgress?.({ kind: 'parsed', sessionId, entryCount: checked.entries.length });
  const metadata = {
    ...(options.actor !== undefined ? { actor: options.actor } : {}),
    ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
  };
  const handled = await handleCommand(
    store,
    sessionStreamName(sessionId),
    { type: 'ImportSession', data: { header: parsed.header, entries: checked.entries } },
    importDecider,
    {
      parseEvent: parseStoredSessionEvent,
      eventIdOf: (event, index) => {
        if ((index + 1) % PROGRESS_INTERVAL === 0) {
          options.onProgress?.({ kind: 'prepared', sessionId, eventCount: index + 1 });
        }
        return importedEventId(sessionId, event);
      },
      metadata,
      ...(options.appender ? { appender: options.appender } : {}),
    },
  );
  if (handled.revision === null) throw new Error(`session ${sessionId} was not stored`);
  return {
    sessionId,
    streamId: sessionStreamName(sessionId),
    outcome: handled.events.length > 0 ? 'imported' : 'unchanged',
    entryCount: checked.entries.length,
    eventsWritten: handled.events.length,
    revision: handled.revision,
    sourceVersion: parsed.sourceVersion,
    migrated: parsed.migrated,
    skipped: [...parsed.skipped, ...checked.skipped].sort((left, right) => left.line - right.line),
    repaired: checked.repaired,
  };
}
