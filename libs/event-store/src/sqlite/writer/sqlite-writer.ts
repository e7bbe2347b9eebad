// Every write this process makes to a SQLite file goes through its writer: one per file, shared by
// every store, checkpoint store, anchor log and projection storage open on it, so that writes
// arriving together commit together (group commit) and no write ever waits on the event loop.
// For a file the writer is a thread of its own (sqlite-writer.worker.ts); for a private
// in-memory database, which no other connection can see, it runs the same executor in place at
// the next turn of the event loop. The writes made in one turn of the event loop reach the thread
// in one message. A write resolves once its batch has committed.
import type Database from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '@strata/threads';
import { SqliteWriteExecutor } from './sqlite-write-executor';
import { DEFAULT_BUSY_TIMEOUT_MS } from '../sqlite-database';
import { DEFAULT_SQLITE_SYNCHRONOUS, type SqliteSynchronous } from './sqlite-writer-connection';
import {
  deserializeError,
  type FromWriter,
  type ToWriter,
  type WriteOutcome,
  type WriteRequest,
} from './sqlite-write-protocol';

/** What a write names: an operation of an operations module (see `SqliteWriteOperations`). */
export interface WriteOperation {
  /** The module's absolute path (its `__filename`). */
  readonly module: string;
  readonly operation: string;
  /** Runs alone, between batches and outside any transaction (pragmas that a transaction forbids). */
  readonly outsideTransaction?: boolean;
  /**
   * Depends on no write queued before it (an append of events: its own checks decide), so a
   * small one may be committed ahead of large writes that wait (sqlite-write-executor.ts).
   */
  readonly independent?: boolean;
}

export interface SqliteWriter {
  /**
   * Runs the operation in the next batch; resolves with its result once the batch committed.
   * `bytes` is about what it writes (it bounds the batch it joins).
   */
  write<Result>(operation: WriteOperation, args: unknown, bytes?: number): Promise<Result>;
  /**
   * Starts the writer's thread now, unless it runs (it starts at the first write otherwise), so
   * that a caller about to write overlaps the thread's start with its own preparation.
   */
  warmUp(): void;
  /** Answers the writes under way, then stops. */
  close(): Promise<void>;
}

/** The writer thread stopped (it failed, or was closed) before it answered this write. */
export class SqliteWriterStoppedError extends Error {
  override readonly name = 'SqliteWriterStoppedError';
  /** A store that cannot write right now: the HTTP edge answers 503. */
  readonly code = 'SQLITE_IOERR_WRITER_STOPPED';
}

export interface SqliteWriterOptions {
  readonly synchronous: SqliteSynchronous;
  /** How long a write waits for another connection's write lock before `StoreBusyError`. */
  readonly busyTimeoutMs: number;
}

interface Waiting {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/** Keeps the promises of the writes sent and settles them from the outcomes. */
class OutcomeBook {
  private nextSeq = 1;
  private readonly waiting = new Map<number, Waiting>();

  get size(): number {
    return this.waiting.size;
  }

  request(operation: WriteOperation, args: unknown, bytes: number, busyTimeoutMs: number) {
    const seq = this.nextSeq++;
    const request: WriteRequest = {
      seq,
      module: operation.module,
      operation: operation.operation,
      args,
      bytes,
      deadline: Date.now() + busyTimeoutMs,
      ...(operation.outsideTransaction === true ? { outsideTransaction: true } : {}),
      ...(operation.independent === true ? { independent: true } : {}),
    };
    const settled = new Promise<unknown>((resolve, reject) => this.waiting.set(seq, { resolve, reject }));
    return { request, settled };
  }

  settle(outcomes: readonly WriteOutcome[]): void {
    for (const outcome of outcomes) {
      const waiting = this.waiting.get(outcome.seq);
      if (waiting === undefined) continue;
      this.waiting.delete(outcome.seq);
      if (outcome.ok) waiting.resolve(outcome.value);
      else waiting.reject(deserializeError(outcome.error));
    }
  }

  failAll(error: Error): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const { reject } of waiting) reject(error);
  }
}

const writerModule = require.resolve('./sqlite-writer.worker');

/** The writer of a database file: a thread, started at the first write and again after a failure. */
export class ThreadSqliteWriter implements SqliteWriter {
  private worker: Worker | undefined;
  private readonly book = new OutcomeBook();
  private outgoing: WriteRequest[] = [];
  private flushScheduled = false;
  private closed = false;
  private stopped: Promise<void> | undefined;

  constructor(
    readonly filename: string,
    private readonly options: SqliteWriterOptions,
  ) {}

  write<Result>(
    operation: WriteOperation,
    args: unknown,
    bytes = 0,
    busyTimeoutMs = this.options.busyTimeoutMs,
  ): Promise<Result> {
    if (this.closed)
      return Promise.reject(new SqliteWriterStoppedError(`the writer of ${this.filename} is closed`));
    const { request, settled } = this.book.request(operation, args, bytes, busyTimeoutMs);
    this.outgoing.push(request);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // at the end of this turn of the event loop: the writes of every request it handled go in
      // one message (one structured clone and one wake-up of the thread, not one per write)
      setImmediate(() => this.flush());
    }
    return settled as Promise<Result>;
  }

  warmUp(): void {
    // an idle thread does not keep the process alive
    if (!this.closed && this.worker === undefined) this.workerToWrite().unref();
  }

  close(): Promise<void> {
    if (this.closed) return this.stopped ?? Promise.resolve();
    this.closed = true;
    this.flush();
    const worker = this.worker;
    if (worker === undefined) {
      this.stopped = Promise.resolve();
      return this.stopped;
    }
    this.stopped = new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.ref();
      this.send(worker, { type: 'close' });
    });
    return this.stopped;
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.outgoing.length === 0) return;
    const requests = this.outgoing;
    this.outgoing = [];
    const worker = this.workerToWrite();
    worker.ref();
    this.send(worker, { type: 'requests', requests });
  }

  private send(worker: Worker, message: ToWriter): void {
    worker.postMessage(message);
  }

  private workerToWrite(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = startModuleWorker(writerModule, {
      workerData: { filename: this.filename, synchronous: this.options.synchronous },
    });
    this.worker = worker;
    worker.on('message', (message: FromWriter) => {
      if (message.type === 'outcomes') {
        this.book.settle(message.outcomes);
        // Only writes awaiting an answer keep the process alive (a CLI ends when its work does).
        if (this.book.size === 0) worker.unref();
      } else if (message.type === 'failed') this.stop(worker, deserializeError(message.error));
    });
    worker.on('error', (error) => this.stop(worker, error));
    worker.on('exit', (code) => {
      const why = this.closed ? 'it was closed' : `its thread ended (exit code ${code})`;
      this.stop(worker, new SqliteWriterStoppedError(`the writer of ${this.filename} stopped: ${why}`));
    });
    return worker;
  }

  /** Fails every write the stopped thread did not answer; the next write starts a new thread. */
  private stop(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    if (!this.closed) void worker.terminate();
    const stopped =
      error instanceof SqliteWriterStoppedError
        ? error
        : new SqliteWriterStoppedError(`the writer of ${this.filename} failed: ${error.message}`, {
            cause: error,
          });
    this.book.failAll(stopped);
  }
}

/** The writer of a private in-memory database: the executor, run in place at the next turn. */
export class InPlaceSqliteWriter implements SqliteWriter {
  private readonly executor: SqliteWriteExecutor;
  private readonly book = new OutcomeBook();
  private pending: WriteRequest[] = [];
  private scheduled = false;
  private closed = false;

  constructor(
    database: Database.Database,
    private readonly options: Pick<SqliteWriterOptions, 'busyTimeoutMs'> = { busyTimeoutMs: 10_000 },
  ) {
    this.executor = new SqliteWriteExecutor(database);
  }

  write<Result>(operation: WriteOperation, args: unknown, bytes = 0): Promise<Result> {
    if (this.closed) return Promise.reject(new SqliteWriterStoppedError('the in-memory writer is closed'));
    const { request, settled } = this.book.request(operation, args, bytes, this.options.busyTimeoutMs);
    this.pending.push(request);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.run());
    }
    return settled as Promise<Result>;
  }

  warmUp(): void {
    // nothing to start: it writes on this thread
  }

  close(): Promise<void> {
    this.run();
    this.closed = true;
    return Promise.resolve();
  }

  private run(): void {
    this.scheduled = false;
    const pending = this.pending;
    this.pending = [];
    this.executor.drain(
      pending,
      (outcomes) => this.book.settle(outcomes),
      () => [],
    );
  }
}

interface SharedWriter {
  readonly writer: ThreadSqliteWriter;
  readonly synchronous: SqliteSynchronous;
  users: number;
}

const writersByFile = new Map<string, SharedWriter>();

/**
 * The writer of a database file for one more user; its `close()` lets go of it, and the thread
 * stops when its last user did. Every user of a file shares one writer (its durability is the
 * first user's; a user asking for another is told).
 */
export function acquireSqliteWriter(key: string, options: SqliteWriterOptions): SqliteWriter {
  let shared = writersByFile.get(key);
  if (shared === undefined) {
    shared = { writer: new ThreadSqliteWriter(key, options), synchronous: options.synchronous, users: 0 };
    writersByFile.set(key, shared);
  } else if (shared.synchronous !== options.synchronous) {
    throw new RangeError(
      `${key} is open with synchronous=${shared.synchronous} in this process; it cannot be opened with ${options.synchronous} too`,
    );
  }
  const entry = shared;
  entry.users += 1;
  let released = false;
  return {
    write: (operation, args, bytes) => entry.writer.write(operation, args, bytes, options.busyTimeoutMs),
    warmUp: () => entry.writer.warmUp(),
    close: () => {
      if (released) return Promise.resolve();
      released = true;
      entry.users -= 1;
      if (entry.users > 0) return Promise.resolve();
      if (writersByFile.get(key) === entry) writersByFile.delete(key);
      return entry.writer.close();
    },
  };
}

export interface OpenSqliteWriterOptions {
  readonly synchronous?: SqliteSynchronous;
  readonly busyTimeoutMs?: number;
  /**
   * Make `database` `query_only` at once (true by default); false for a caller that still creates
   * tables on it and makes it `query_only` itself afterwards.
   */
  readonly guardAfter?: boolean;
}

/**
 * The writer for `database`, this thread's connection to the file `key` (`databaseKey`): the
 * file's shared writer thread, after which `database` is made `query_only` so that no write can
 * slip past the writer; for `':memory:'`, an in-place writer on `database` itself.
 */
export function openSqliteWriter(
  database: Database.Database,
  key: string,
  options: OpenSqliteWriterOptions = {},
): SqliteWriter {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (key === ':memory:') return new InPlaceSqliteWriter(database, { busyTimeoutMs });
  const writer = acquireSqliteWriter(key, {
    synchronous: options.synchronous ?? DEFAULT_SQLITE_SYNCHRONOUS,
    busyTimeoutMs,
  });
  if (options.guardAfter !== false) database.pragma('query_only = ON');
  return writer;
}
