// Importing a pi session file (any version, migrated to v3) as the stream `session-<id>`: one
// atomic append through the generic command handler and the import decision, with event ids
// derived from the session id and each entry id (`sessionIdSeed`), so importing the same file
// again writes nothing and no two sessions share an id. Nothing is written for a file with a
// bad line unless the import is lenient.
import {
  importDecider,
  parseSessionFile,
  SessionFileError,
  sessionStreamName,
  type SessionEntry,
  type SessionEvent,
  type SessionFileContent,
  type SessionHeader,
  type SessionFileProblem,
  type SessionFileVersion,
} from '@strata/session';
import { derivedEventId } from '../command-handling/derived-event-id';
import { sessionIdSeed } from '../command-handling/id-seed';
import { handleCommand, type StreamAppender } from '../command-handling/handle-command';
import type { EventStore } from '../port';
import { checkEntryReferences, entryLineNumbers } from './entry-references';
import { parseStoredSessionEvent } from './session-repository';
import { SessionImportError } from './session-store-errors';

/**
 * The metadata key and value that mark an event as imported history: the engine's sagas leave
 * such events alone (history is not compacted or continued as if it had just happened).
 */
export const EVENT_ORIGIN_KEY = 'origin';
export const IMPORT_ORIGIN = 'import';

/** Whether a stored event was written by an import of a session file. */
export function isImportedEvent(recorded: { readonly metadata: Readonly<Record<string, unknown>> }): boolean {
  return recorded.metadata[EVENT_ORIGIN_KEY] === IMPORT_ORIGIN;
}

/** Progress is reported before writing and every `PROGRESS_INTERVAL` events prepared. */
export const PROGRESS_INTERVAL = 10_000;

export type ImportProgress =
  | { readonly kind: 'parsed'; readonly sessionId: string; readonly entryCount: number }
  | { readonly kind: 'prepared'; readonly sessionId: string; readonly eventCount: number };

export interface PrepareSessionImportOptions {
  /** Skip bad lines (and report them) instead of refusing the file. */
  readonly lenient?: boolean;
  /** The session id when the header has none (for instance from the file name). */
  readonly sessionIdFallback?: string;
}

export interface WriteSessionImportOptions {
  /** Who imports: written into each event's metadata. */
  readonly actor?: string;
  /** More audit metadata of each event (who the importer acts for); `actor` and `tenant` win over it. */
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly tenant?: string;
  readonly onProgress?: (progress: ImportProgress) => void;
  /** Events between two `prepared` reports; `PROGRESS_INTERVAL` by default. */
  readonly progressInterval?: number;
  /** How events reach the store (the integrity layer's sealing appender by default). */
  readonly appender?: StreamAppender;
  /**
   * Write a session whose stream was erased again, as a new stream (its erasure record stays).
   * EventStoreDB cannot: its tombstone is final, and the import throws `StreamErasedError`.
   */
  readonly reviveErased?: boolean;
}

/** The store with every append asked to revive an erased stream (`AppendOptions.reviveErased`). */
function revivingStore(store: EventStore): EventStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'appendToStream') {
        const append: EventStore['appendToStream'] = (streamId, events, appendOptions) =>
          target.appendToStream(streamId, events, { ...appendOptions, reviveErased: true });
        return append;
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export type ImportSessionOptions = PrepareSessionImportOptions & WriteSessionImportOptions;

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
  if (event.type === 'SessionStarted') return derivedEventId(sessionIdSeed(sessionId, 'import-header'), 0);
  if (event.type === 'EntryAppended')
    return derivedEventId(sessionIdSeed(sessionId, 'import-entry', event.data.entry.id), 0);
  if (event.type === 'LeafMoved')
    return derivedEventId(sessionIdSeed(sessionId, 'import-leaf', event.data.leafId), 0);
  throw new Error(`an import does not write ${event.type} events`);
}

function parseFile(text: SessionFileContent, options: PrepareSessionImportOptions) {
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

/** A file checked and ready to write: nothing about it can fail any more but the store. */
export interface PreparedSessionImport {
  readonly header: SessionHeader;
  readonly entries: readonly SessionEntry[];
  readonly sourceVersion: SessionFileVersion;
  readonly migrated: boolean;
  readonly skipped: readonly SessionFileProblem[];
  readonly repaired: readonly SessionFileProblem[];
}

/**
 * Parses and checks a session file without touching a store, so that a caller importing several
 * files can refuse them all before writing any. Throws `SessionImportError` (line and why).
 * Given bytes, a line that is not UTF-8 is a problem (`invalid-utf8`) instead of being decoded
 * with replacement characters.
 */
export function prepareSessionImport(
  text: SessionFileContent,
  options: PrepareSessionImportOptions = {},
): PreparedSessionImport {
  const parsed = parseFile(text, options);
  const checked = checkEntryReferences(
    parsed.entries,
    entryLineNumbers(text, parsed.skipped),
    options.lenient ?? false,
  );
  return {
    header: parsed.header,
    entries: checked.entries,
    sourceVersion: parsed.sourceVersion,
    migrated: parsed.migrated,
    skipped: [...parsed.skipped, ...checked.skipped].sort((left, right) => left.line - right.line),
    repaired: checked.repaired,
  };
}

/**
 * Writes a prepared session in one append. Throws `SessionImportConflictError` when the stream
 * holds different content (nothing is written).
 */
export async function writeSessionImport(
  store: EventStore,
  prepared: PreparedSessionImport,
  options: WriteSessionImportOptions = {},
): Promise<SessionImportReport> {
  const sessionId = prepared.header.id;
  const streamId = sessionStreamName(sessionId);
  const progressInterval = options.progressInterval ?? PROGRESS_INTERVAL;
  options.onProgress?.({ kind: 'parsed', sessionId, entryCount: prepared.entries.length });
  const metadata = {
    ...options.metadata,
    [EVENT_ORIGIN_KEY]: IMPORT_ORIGIN,
    ...(options.actor !== undefined ? { actor: options.actor } : {}),
    ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
  };
  const handled = await handleCommand(
    options.reviveErased === true ? revivingStore(store) : store,
    streamId,
    { type: 'ImportSession', data: { header: prepared.header, entries: prepared.entries } },
    importDecider,
    {
      parseEvent: parseStoredSessionEvent,
      eventIdOf: (event, index) => {
        if ((index + 1) % progressInterval === 0) {
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
    streamId,
    outcome: handled.events.length > 0 ? 'imported' : 'unchanged',
    entryCount: prepared.entries.length,
    eventsWritten: handled.events.length,
    revision: handled.revision,
    sourceVersion: prepared.sourceVersion,
    migrated: prepared.migrated,
    skipped: prepared.skipped,
    repaired: prepared.repaired,
  };
}

/**
 * Imports one session file: `prepareSessionImport` then `writeSessionImport`. For a bad file
 * or a conflicting stream it throws and writes nothing.
 */
export async function importSessionFile(
  store: EventStore,
  text: SessionFileContent,
  options: ImportSessionOptions = {},
): Promise<SessionImportReport> {
  return writeSessionImport(store, prepareSessionImport(text, options), options);
}
