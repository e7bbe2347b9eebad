// The cases of suite `import`: one pi session file imported into a fresh store, four ways.
// - baseline: the bytes split into lines, each `JSON.parse`d and written back as an event row
//   (`SessionStarted` for the header, `EntryAppended` per entry) with raw better-sqlite3, in one
//   transaction, into the adapter's table shape: the floor of "read a JSONL file into SQLite";
// - `prepareSessionImport` alone (parse, validate, migrate, check references; no store);
// - the library path that `strata import` and `POST /sessions/import` share
//   (`importSessionFile`: prepare, fold the stream, decide, seal into the hash chain, one append)
//   into a fresh `SqliteEventStore`;
// - the engine over HTTP (`POST /sessions/import` on loopback): until the answer, and until the
//   session is readable and the sagas have handled every event.
import { SqliteEventStore } from '@strata/event-store';
import { importSessionFile, prepareSessionImport } from '@strata/session-files';
import { createUuidV7Generator } from '../../libs/event-store/src/ids/uuidv7';
import type { BenchCase } from '../harness';
import { freshDatabase } from '../store/sqlite-cases';
import type { EventRowValues } from '../store/event-batches';
import { RawSqliteEvents } from '../store/raw-sqlite';

export const IMPORT_ACTOR = 'strata-bench:import';
export const IMPORT_TENANT = 'bench';

/** A pi session file held in memory, as `strata import` reads it (bytes, not decoded text). */
export interface ImportFile {
  readonly name: string;
  readonly bytes: Buffer;
  readonly megabytes: number;
  /** Entry lines (every non-empty line after the header). */
  readonly entries: number;
}

/** The engine the HTTP cases talk to, and how to wait until it has caught up with a session. */
export interface ImportEngine {
  readonly baseUrl: string;
  /** Resolves once the session reads back (read models at its head) and the sagas are idle. */
  caughtUp(sessionId: string): Promise<void>;
}

/** The file's lines as event rows, the way a bare importer would write them. */
export function rawEventRows(bytes: Buffer, nextId: () => string): EventRowValues[] {
  const rows: EventRowValues[] = [];
  const metadata = JSON.stringify({ tenant: IMPORT_TENANT, actor: IMPORT_ACTOR });
  for (const line of bytes.toString('utf8').split('\n')) {
    if (line.trim().length === 0) continue;
    const value: unknown = JSON.parse(line);
    const header = rows.length === 0;
    rows.push({
      id: nextId(),
      type: header ? 'SessionStarted' : 'EntryAppended',
      data: JSON.stringify(header ? { header: value } : { entry: value }),
      metadata,
    });
  }
  return rows;
}

/** The session id of the file's header line. */
export function headerSessionId(bytes: Buffer): string {
  const end = bytes.indexOf(0x0a);
  const header = JSON.parse(bytes.subarray(0, end < 0 ? bytes.length : end).toString('utf8')) as {
    id?: unknown;
  };
  if (typeof header.id !== 'string') throw new Error('the session file has no header id');
  return header.id;
}

/**
 * The same file under another session id (the header line rewritten, every entry line kept
 * byte for byte), so that one engine can import it again as a new session.
 */
export function withSessionId(bytes: Buffer, sessionId: string): Buffer {
  const end = bytes.indexOf(0x0a);
  const header = JSON.parse(bytes.subarray(0, end).toString('utf8')) as Record<string, unknown>;
  return Buffer.concat([
    Buffer.from(JSON.stringify({ ...header, id: sessionId }), 'utf8'),
    bytes.subarray(end),
  ]);
}

interface RawState {
  readonly raw: RawSqliteEvents;
  readonly remove: () => void;
}

interface StoreState {
  readonly store: SqliteEventStore;
  readonly remove: () => void;
}

interface HttpState {
  readonly sessionId: string;
  readonly body: Buffer;
}

async function postImport(engine: ImportEngine, body: Buffer): Promise<void> {
  const response = await fetch(`${engine.baseUrl}/sessions/import`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-ndjson' },
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /sessions/import answered ${response.status}: ${text}`);
}

export function importCases(
  file: ImportFile,
  scratchDirectory: string,
  engine: ImportEngine | undefined,
): BenchCase<unknown>[] {
  const group = `import a session file · ${file.name}`;
  const common = {
    group,
    unit: 'entry',
    operationsPerIteration: file.entries,
    details: { entries: file.entries, megabytes: Math.round(file.megabytes * 1000) / 1000 },
  };
  const nextId = createUuidV7Generator();
  let copies = 0;
  const httpSetup = (): HttpState => {
    copies += 1;
    const sessionId = `bench-import-${file.name}-${copies}`;
    return { sessionId, body: withSessionId(file.bytes, sessionId) };
  };
  const raw: BenchCase<RawState> = {
    ...common,
    name: `import/${file.name}/raw-sqlite`,
    role: 'baseline',
    label: 'raw better-sqlite3: JSON.parse, a row per line, 1 transaction',
    setup: () => {
      const database = freshDatabase(scratchDirectory, 'raw-import');
      return { raw: new RawSqliteEvents(database.filename), remove: database.remove };
    },
    run: ({ raw: events }) => {
      const rows = rawEventRows(file.bytes, nextId);
      events.append(`session-${file.name}`, 0, rows);
      return rows.length;
    },
    teardown: ({ raw: events, remove }) => {
      events.close();
      remove();
    },
  };
  const prepareOnly: BenchCase = {
    ...common,
    name: `import/${file.name}/prepare-only`,
    role: 'subject',
    label: 'prepareSessionImport only (no store)',
    run: () => prepareSessionImport(file.bytes).entries.length,
  };
  const library: BenchCase<StoreState> = {
    ...common,
    name: `import/${file.name}/library`,
    role: 'subject',
    label: 'importSessionFile into SQLite (strata import)',
    setup: () => {
      const database = freshDatabase(scratchDirectory, 'strata-import');
      const store = new SqliteEventStore({ filename: database.filename });
      // as `strata import` does: the writer thread starts while the files are read
      store.writer.warmUp();
      return { store, remove: database.remove };
    },
    run: ({ store }) => importSessionFile(store, file.bytes, { actor: IMPORT_ACTOR, tenant: IMPORT_TENANT }),
    teardown: async ({ store, remove }) => {
      await store.close();
      remove();
    },
  };
  const cases: BenchCase<unknown>[] = [raw, prepareOnly, library] as BenchCase<unknown>[];
  if (engine === undefined) return cases;
  const httpAnswer: BenchCase<HttpState> = {
    ...common,
    name: `import/${file.name}/http-answer`,
    role: 'subject',
    label: 'engine: POST /sessions/import, until the answer',
    setup: httpSetup,
    run: ({ body }) => postImport(engine, body),
    // The read models and sagas follow the import in the background: let them finish untimed,
    // so that their work does not land in the next case's iteration.
    teardown: ({ sessionId }) => engine.caughtUp(sessionId),
  };
  const httpCaughtUp: BenchCase<HttpState> = {
    ...common,
    name: `import/${file.name}/http-caught-up`,
    role: 'subject',
    label: 'engine: POST /sessions/import, until caught up',
    setup: httpSetup,
    run: async ({ sessionId, body }) => {
      await postImport(engine, body);
      await engine.caughtUp(sessionId);
    },
  };
  return [...cases, httpAnswer, httpCaughtUp] as BenchCase<unknown>[];
}
