// Group commit on one SQLite connection: the write requests waiting together run in one
// transaction, each inside a savepoint of its own, so each keeps its own checks and gets its own
// outcome (a request that throws is rolled back alone), and the transaction is committed once
// (with `synchronous = FULL`, one flush for the whole batch). Nothing is answered before the
// commit returned. A write lock held by another connection is waited for in short slices, so that
// requests arriving meanwhile join the batch and each request is answered `StoreBusyError` once
// its own deadline has passed. The same executor runs on a writer thread and, for a private
// in-memory database, in place.
//
// Batches are taken in arrival order, with one exception that keeps one tenant's large writes
// from holding up another's small ones: a small independent request (an append of events below
// `SMALL_REQUEST_BYTES`, which depends on no earlier write) is taken into the next batch ahead
// of the large requests queued before it, and a batch holds at most `maxBytes` (8 MiB), so a
// small append waits for at most the transaction being written, never for a queue of 8 MiB
// appends. Everything else keeps its order (read models' writes, the signed log, erasures), and
// nothing passes a request that runs outside a transaction.
import type Database from 'better-sqlite3';
import {
  StoreBusyError,
  serializeError,
  type SerializedError,
  type WriteOutcome,
  type WriteRequest,
} from './sqlite-write-protocol';

/** What an operation gets: the connection, inside the batch's transaction, inside its own savepoint. */
export interface SqliteWriteContext {
  readonly database: Database.Database;
  /** The statement of `sql`, prepared on the connection at its first use and kept. */
  readonly statement: <Parameters extends unknown[] = unknown[], Row = unknown>(
    sql: string,
  ) => Database.Statement<Parameters, Row>;
  /** Runs `work` after the batch committed (a WAL checkpoint after an erasure, say); its errors are ignored. */
  readonly afterCommit: (work: () => void) => void;
}

/** A write the writer can run: synchronous, inside the transaction it is given. */
export type SqliteWriteOperation = (context: SqliteWriteContext, args: never) => unknown;

/** What an operations module exports under `sqliteWriteOperations`. */
export type SqliteWriteOperations = Readonly<Record<string, SqliteWriteOperation>>;

export interface SqliteBatchLimits {
  /** Requests in one transaction. */
  readonly maxRequests: number;
  /** Bytes (as the requests declare them) in one transaction; a larger request runs alone. */
  readonly maxBytes: number;
}

export const DEFAULT_BATCH_LIMITS: SqliteBatchLimits = { maxRequests: 1_000, maxBytes: 8 * 1_048_576 };

/** Below this many bytes, an independent request may be taken ahead of larger ones. */
export const SMALL_REQUEST_BYTES = 64 * 1024;

function overtakes(request: WriteRequest): boolean {
  return request.independent === true && request.bytes < SMALL_REQUEST_BYTES;
}

/** How long one attempt to take the write lock may wait before the queue is looked at again. */
export const LOCK_SLICE_MS = 50;

/** Loads the operations of a module by its path (`require` on a thread or in place). */
export type OperationsLoader = (modulePath: string) => SqliteWriteOperations;

export function requireOperations(modulePath: string): SqliteWriteOperations {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- operations modules are named by path at run time
  const loaded = require(modulePath) as { readonly sqliteWriteOperations?: SqliteWriteOperations };
  if (loaded.sqliteWriteOperations === undefined) {
    throw new TypeError(`${modulePath} exports no sqliteWriteOperations`);
  }
  return loaded.sqliteWriteOperations;
}

function isBusy(error: unknown): boolean {
  const code = (error as { readonly code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

export class SqliteWriteExecutor {
  private readonly modules = new Map<string, SqliteWriteOperations>();
  private readonly statements = new Map<string, Database.Statement>();
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;
  private readonly savepoint: Database.Statement;
  private readonly release: Database.Statement;
  private readonly rollbackTo: Database.Statement;

  constructor(
    readonly database: Database.Database,
    private readonly load: OperationsLoader = requireOperations,
    private readonly limits: SqliteBatchLimits = DEFAULT_BATCH_LIMITS,
  ) {
    this.begin = database.prepare('BEGIN IMMEDIATE');
    this.commit = database.prepare('COMMIT');
    this.rollback = database.prepare('ROLLBACK');
    this.savepoint = database.prepare('SAVEPOINT strata_write');
    this.release = database.prepare('RELEASE strata_write');
    this.rollbackTo = database.prepare('ROLLBACK TO strata_write');
  }

  /**
   * Runs every request of `pending` (emptied as it goes), one transaction per batch, and hands
   * each batch's outcomes to `emit` after its commit. `arrived` returns the requests that came in
   * meanwhile (they join the queue); `now` is the clock of the deadlines.
   */
  drain(
    pending: WriteRequest[],
    emit: (outcomes: readonly WriteOutcome[]) => void,
    arrived: () => readonly WriteRequest[],
    now: () => number = Date.now,
  ): void {
    for (;;) {
      pending.push(...arrived());
      const next = pending[0];
      if (next === undefined) return;
      if (next.outsideTransaction === true) {
        emit([this.runAlone(pending.shift() ?? next)]);
        continue;
      }
      let batch = this.fillBatch([], pending);
      const waitStarted = now();
      for (;;) {
        const begun = this.tryBegin();
        if (begun === 'begun') break;
        if (begun !== 'busy') {
          // The connection cannot write at all (closed, read-only, an I/O error): this batch fails.
          const error = serializeError(begun.failed);
          emit(batch.map((request) => ({ seq: request.seq, ok: false, error })));
          batch = [];
          break;
        }
        pending.push(...arrived());
        const at = now();
        const expired = [...batch, ...pending].filter((request) => request.deadline <= at);
        if (expired.length > 0) {
          const busy = serializeError(new StoreBusyError(Math.max(0, Math.round(at - waitStarted))));
          emit(expired.map((request) => ({ seq: request.seq, ok: false, error: busy })));
          const gone = new Set(expired);
          batch = batch.filter((request) => !gone.has(request));
          const left = pending.filter((request) => !gone.has(request));
          pending.length = 0;
          pending.push(...left);
        }
        // Requests that came while the lock was held join the batch, to commit with it.
        this.fillBatch(batch, pending);
        if (batch.length === 0) return;
      }
      if (batch.length > 0) emit(this.runInTransaction(batch));
    }
  }

  /**
   * Moves requests of `pending` into `batch` while the batch's bounds allow: first the small
   * independent ones from anywhere before the first request that must run alone, then the others
   * from the front, in order, up to the first that does not fit or must run alone.
   */
  private fillBatch(batch: WriteRequest[], pending: WriteRequest[]): WriteRequest[] {
    let bytes = batch.reduce((total, request) => total + request.bytes, 0);
    const fits = (request: WriteRequest): boolean =>
      batch.length < this.limits.maxRequests &&
      (batch.length === 0 || bytes + request.bytes <= this.limits.maxBytes);
    const take = (index: number): void => {
      const [request] = pending.splice(index, 1);
      bytes += request!.bytes;
      batch.push(request!);
    };
    for (let index = 0; index < pending.length;) {
      const request = pending[index]!;
      if (request.outsideTransaction === true) break;
      if (overtakes(request) && fits(request)) take(index);
      else index += 1;
    }
    while (pending.length > 0) {
      const next = pending[0]!;
      if (next.outsideTransaction === true || !fits(next)) break;
      take(0);
    }
    return batch;
  }

  /**
   * `begun` once the write lock is taken; `busy` when another connection held it for a whole
   * slice; the error when the connection cannot begin a write at all.
   */
  private tryBegin(): 'begun' | 'busy' | { readonly failed: unknown } {
    try {
      this.begin.run();
      return 'begun';
    } catch (error) {
      return isBusy(error) ? 'busy' : { failed: error };
    }
  }

  private runAlone(request: WriteRequest): WriteOutcome {
    const context: SqliteWriteContext = {
      database: this.database,
      statement: <Parameters extends unknown[], Row>(sql: string) =>
        this.statement(sql) as Database.Statement<Parameters, Row>,
      afterCommit: (work) => work(),
    };
    try {
      return { seq: request.seq, ok: true, value: this.operation(request)(context, request.args as never) };
    } catch (error) {
      return { seq: request.seq, ok: false, error: serializeError(error) };
    }
  }

  private runInTransaction(batch: readonly WriteRequest[]): WriteOutcome[] {
    const outcomes: WriteOutcome[] = [];
    const afterCommit: (() => void)[] = [];
    const context: SqliteWriteContext = {
      database: this.database,
      statement: <Parameters extends unknown[], Row>(sql: string) =>
        this.statement(sql) as Database.Statement<Parameters, Row>,
      afterCommit: (work) => afterCommit.push(work),
    };
    let lost: SerializedError | undefined;
    for (const request of batch) {
      if (lost !== undefined) {
        outcomes.push({ seq: request.seq, ok: false, error: lost });
        continue;
      }
      this.savepoint.run();
      try {
        const value = this.operation(request)(context, request.args as never);
        this.release.run();
        outcomes.push({ seq: request.seq, ok: true, value });
      } catch (error) {
        outcomes.push({ seq: request.seq, ok: false, error: serializeError(error) });
        if (this.database.inTransaction) {
          this.rollbackTo.run();
          this.release.run();
        } else {
          // SQLite rolled the whole transaction back (an I/O error, a full disk): nothing of
          // the batch is stored, so no request of it may be answered as written.
          lost = serializeError(error);
        }
      }
    }
    if (lost === undefined) {
      try {
        this.commit.run();
      } catch (error) {
        if (this.database.inTransaction) this.rollback.run();
        lost = serializeError(error);
      }
    }
    if (lost !== undefined) {
      const error = lost;
      return outcomes.map((outcome) => (outcome.ok ? { seq: outcome.seq, ok: false, error } : outcome));
    }
    for (const work of afterCommit) {
      try {
        work();
      } catch {
        // Best effort by contract: the batch is committed whatever this work does.
      }
    }
    return outcomes;
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.database.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private operation(request: WriteRequest): SqliteWriteOperation {
    let operations = this.modules.get(request.module);
    if (operations === undefined) {
      operations = this.load(request.module);
      this.modules.set(request.module, operations);
    }
    const operation = operations[request.operation];
    if (operation === undefined) {
      throw new TypeError(`${request.module} has no write operation ${request.operation}`);
    }
    return operation;
  }
}
