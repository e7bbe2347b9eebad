// Importing a pi session file (any version, migrated to v3) as the stream `session-<id>`: one
// atomic append through the generic command handler and the import decision (on an EventStoreDB
// node whose maximum append size it passes, several appends in order), with event ids
// derived from the session id and each entry id (`sessionIdSeed`), so importing the same file
// again writes nothing and no two sessions share an id. A file that grew since it was imported
// (the stored entries are its first ones) gets the rest appended, in one append at the revision
// read; so does a part of a file (`fromEntry`: its entries from there on, as `strata watch`
// sends them). Racing syncs of one file each re-read and decide again on a conflict, and the
// derived ids make a repeated append write nothing, so no entry is lost or stored twice. Nothing
// is written for a file with a bad line unless the import is lenient.
import {
  detectSessionFileFormat,
  importDecider,
  parseSessionFile,
  parseTranscriptFile,
  SessionFileError,
  sessionStreamName,
  type SessionEntry,
  type SessionEvent,
  type SessionFileContent,
  type SessionHeader,
  type SessionFileProblem,
  type SessionFileFormat,
  type SessionFileVersion,
  type ImportSessionCommand,
  type SessionState,
} from '@strata/session';
import {
  derivedEventId,
  DuplicateEventIdError,
  type EventStore,
  handleCommand,
  sessionIdSeed,
  type StreamAppender,
} from '@strata/event-store';
import { createSealingAppender, sealingAppender } from '@strata/integrity';
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
  /**
   * The file's format: `auto` (the default) tells it from the lines; `claude-code` and `codex`
   * transcripts are converted into entries, each keeping its original lines. `lenient` applies
   * to pi files only.
   */
  readonly format?: SessionFileFormat | 'auto';
  /**
   * The content is a part of a pi v3 file: its header line, then the file's entries after its
   * first `fromEntry` (which the store must hold). References to earlier entries are checked
   * against the stored session when it is written; strict only.
   */
  readonly fromEntry?: number;
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
  /** The clock the default appender's seal reads (the system clock by default). */
  readonly now?: () => Date;
  /**
   * Called with the stored state and the entries about to be appended, before anything is
   * written; throws to refuse them (the engine's bound on one session).
   */
  readonly checkAppend?: (state: SessionState, entries: readonly SessionEntry[]) => void;
  /**
   * Write a session whose stream was erased again, as a new stream (its erasure record stays).
   * EventStoreDB cannot: its tombstone is final, and the import throws `StreamErasedError`.
   */
  readonly reviveErased?: boolean;
}

/**
 * The store as an import writes to it: an append too large for the store at once is written in
 * parts (`AppendOptions.splitWhenTooLarge`: an import is idempotent, and importing the file again
 * completes one cut short), and with `reviveErased` every append may revive an erased stream.
 */
function importingStore(store: EventStore, reviveErased: boolean): EventStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'appendToStream') {
        const append: EventStore['appendToStream'] = (streamId, events, appendOptions) =>
          target.appendToStream(streamId, events, {
            ...appendOptions,
            splitWhenTooLarge: true,
            ...(reviveErased ? { reviveErased: true } : {}),
          });
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
  /**
   * `imported`: the session was new; `appended`: the store held the file's first entries and
   * the rest were appended; `unchanged`: the store already held every entry; nothing was written.
   */
  readonly outcome: 'imported' | 'appended' | 'unchanged';
  readonly entryCount: number;
  /** Entries appended by this import (all of the file's when it was new, 0 when unchanged). */
  readonly appended: number;
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
  /** The format the file was read in (pi unless it was a converted transcript). */
  readonly format?: SessionFileFormat;
}

/** Times an import reads and decides again after a racing import stored some of its entries. */
const IMPORT_ATTEMPTS = 5;

/**
 * Runs the import's command handling again when a racing sync of the same file stored some of
 * the entries first (their derived ids are then recorded at other revisions): the next read
 * holds them, and the decision appends only the rest.
 */
async function handleImportCommand<Result>(handle: () => Promise<Result>): Promise<Result> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await handle();
    } catch (error) {
      if (!(error instanceof DuplicateEventIdError) || attempt >= IMPORT_ATTEMPTS) throw error;
    }
  }
}

function appendedEntriesOf(events: readonly SessionEvent[]): SessionEntry[] {
  return events.flatMap((event) => (event.type === 'EntryAppended' ? [event.data.entry] : []));
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
  /** The format the file was read in (pi unless it was a converted transcript). */
  readonly format?: SessionFileFormat;
  /** The 1-based file line of each entry, named by a conflict. */
  readonly entryLines?: readonly number[];
  /** A part of a file: the file's entries before `entries` (see PrepareSessionImportOptions). */
  readonly fromEntry?: number;
}

/**
 * A Claude Code or Codex transcript converted into a v3 session (`sourceVersion` 3, `migrated`:
 * it was converted); its references are checked as a pi file's are, naming the line.
 */
function prepareTranscriptImport(
  text: SessionFileContent,
  format: 'claude-code' | 'codex',
  options: PrepareSessionImportOptions,
): PreparedSessionImport {
  let parsed: ReturnType<typeof parseTranscriptFile>;
  try {
    parsed = parseTranscriptFile(text, format, {
      ...(options.sessionIdFallback !== undefined ? { sessionIdFallback: options.sessionIdFallback } : {}),
    });
  } catch (error) {
    if (error instanceof SessionFileError) throw new SessionImportError(error.line, error.code, error.reason);
    throw error;
  }
  const checked = checkEntryReferences(parsed.entries, parsed.entryLines, false);
  return {
    header: parsed.header,
    entries: checked.entries,
    sourceVersion: 3,
    migrated: true,
    skipped: [],
    repaired: [],
    format,
    entryLines: checked.entryLines,
  };
}

/** A part of a pi v3 file: parsed strictly; the decider checks its references against the store. */
function prepareImportPart(text: SessionFileContent, fromEntry: number): PreparedSessionImport {
  if (!Number.isSafeInteger(fromEntry) || fromEntry < 0) {
    throw new RangeError(`fromEntry must be a non-negative integer, not ${fromEntry}`);
  }
  const parsed = parseFile(text, {});
  if (parsed.sourceVersion !== 3) {
    throw new SessionImportError(1, 'unsupported-version', 'a part of a file must be pi version 3');
  }
  return {
    header: parsed.header,
    entries: parsed.entries,
    sourceVersion: 3,
    migrated: false,
    skipped: [],
    repaired: [],
    fromEntry,
  };
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
  if (options.fromEntry !== undefined) return prepareImportPart(text, options.fromEntry);
  const format =
    options.format === undefined || options.format === 'auto'
      ? detectSessionFileFormat(text)
      : options.format;
  if (format !== 'pi') return prepareTranscriptImport(text, format, options);
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
    entryLines: checked.entryLines,
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
  const { checkAppend } = options;
  const decider: typeof importDecider = checkAppend
    ? {
        ...importDecider,
        decide: (command, state) => {
          const events = importDecider.decide(command, state);
          checkAppend(state, appendedEntriesOf(events));
          return events;
        },
      }
    : importDecider;
  const command: ImportSessionCommand = {
    type: 'ImportSession',
    data: {
      header: prepared.header,
      entries: prepared.entries,
      ...(prepared.fromEntry !== undefined ? { fromEntry: prepared.fromEntry } : {}),
      ...(prepared.entryLines !== undefined ? { entryLines: prepared.entryLines } : {}),
    },
  };
  const handled = await handleImportCommand(() =>
    handleCommand(importingStore(store, options.reviveErased === true), streamId, command, decider, {
      parseEvent: parseStoredSessionEvent,
      eventIdOf: (event, index) => {
        if ((index + 1) % progressInterval === 0) {
          options.onProgress?.({ kind: 'prepared', sessionId, eventCount: index + 1 });
        }
        return importedEventId(sessionId, event);
      },
      metadata,
      appender:
        options.appender ??
        (options.now === undefined ? sealingAppender : createSealingAppender({}, { now: options.now })),
    }),
  );
  if (handled.revision === null) throw new Error(`session ${sessionId} was not stored`);
  const appended = appendedEntriesOf(handled.events).length;
  const started = handled.events.some((event) => event.type === 'SessionStarted');
  return {
    sessionId,
    streamId,
    outcome: started ? 'imported' : handled.events.length > 0 ? 'appended' : 'unchanged',
    entryCount: (prepared.fromEntry ?? 0) + prepared.entries.length,
    appended,
    eventsWritten: handled.events.length,
    revision: handled.revision,
    sourceVersion: prepared.sourceVersion,
    migrated: prepared.migrated,
    skipped: prepared.skipped,
    repaired: prepared.repaired,
    ...(prepared.format !== undefined ? { format: prepared.format } : {}),
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
