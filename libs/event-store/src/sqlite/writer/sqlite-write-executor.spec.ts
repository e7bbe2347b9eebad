import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { walCommitCount } from '@strata/testing';
import {
  SMALL_REQUEST_BYTES,
  SqliteWriteExecutor,
  type SqliteWriteContext,
  type SqliteWriteOperations,
} from './sqlite-write-executor';
import { openWriterConnection } from './sqlite-writer-connection';
import {
  deserializeError,
  StoreBusyError,
  type WriteOutcome,
  type WriteRequest,
} from './sqlite-write-protocol';

const notes = 'notes';

const operations: SqliteWriteOperations = {
  note({ statement }: SqliteWriteContext, args: { readonly text: string }) {
    statement('INSERT INTO notes (text) VALUES (?)').run(args.text);
    return args.text.length;
  },
  fail({ statement }: SqliteWriteContext, args: { readonly text: string }) {
    statement('INSERT INTO notes (text) VALUES (?)').run(args.text);
    throw new RangeError(`refused ${args.text}`);
  },
  abortTransaction({ database }: SqliteWriteContext) {
    database.exec('ROLLBACK');
    throw new Error('the transaction is gone');
  },
  later({ statement, afterCommit }: SqliteWriteContext, args: { readonly text: string }) {
    statement('INSERT INTO notes (text) VALUES (?)').run(args.text);
    afterCommit(() => ran.push(args.text));
  },
};
let ran: string[] = [];

let directory: string;
let file: string;
let executor: SqliteWriteExecutor;
let reader: Database.Database;
let seq = 0;

function request(operation: string, text: string, bytes = 10, deadline = Date.now() + 60_000): WriteRequest {
  seq += 1;
  return { seq, module: notes, operation, args: { text }, bytes, deadline };
}

function stored(): string[] {
  return reader
    .prepare<[], { text: string }>('SELECT text FROM notes ORDER BY rowid')
    .all()
    .map((row) => row.text);
}

function runAll(pending: WriteRequest[], arrived: () => WriteRequest[] = () => [], now?: () => number) {
  const batches: WriteOutcome[][] = [];
  executor.drain(pending, (outcomes) => batches.push([...outcomes]), arrived, now);
  return batches;
}

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-executor-'));
  file = join(directory, 'notes.db');
  const setup = new Database(file);
  setup.pragma('journal_mode = WAL');
  setup.exec('CREATE TABLE notes (text TEXT NOT NULL)');
  setup.close();
  const connection = openWriterConnection({ filename: file, synchronous: 'full', lockSliceMs: 20 });
  executor = new SqliteWriteExecutor(connection, () => operations, { maxRequests: 4, maxBytes: 100 });
  reader = new Database(file, { readonly: true });
  ran = [];
});

afterEach(() => {
  reader.close();
  executor.database.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('requests that wait together', () => {
  it('commit in one transaction, each answered with its own result', () => {
    const before = walCommitCount(file);
    const batches = runAll([request('note', 'a'), request('note', 'bb'), request('note', 'ccc')]);
    expect(batches).toHaveLength(1);
    expect(batches[0]?.map((outcome) => (outcome.ok ? outcome.value : outcome.error))).toEqual([1, 2, 3]);
    expect(walCommitCount(file) - before).toBe(1);
    expect(stored()).toEqual(['a', 'bb', 'ccc']);
  });

  it('a request that throws is rolled back alone and answered with its own error', () => {
    const batches = runAll([request('note', 'a'), request('fail', 'b'), request('note', 'c')]);
    const outcomes = batches[0] ?? [];
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, false, true]);
    const failed = outcomes[1];
    if (failed === undefined || failed.ok) throw new Error('the second request should have failed');
    const error = deserializeError(failed.error);
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toBe('refused b');
    expect(stored()).toEqual(['a', 'c']);
  });

  it('when SQLite loses the whole transaction, no request of it is answered as written', () => {
    const batches = runAll([request('note', 'a'), request('abortTransaction', 'x'), request('note', 'c')]);
    expect(batches[0]?.every((outcome) => !outcome.ok)).toBe(true);
    expect(stored()).toEqual([]);
    expect(runAll([request('note', 'after')])[0]?.[0]?.ok).toBe(true);
    expect(stored()).toEqual(['after']);
  });

  it('run their after-commit work only once the batch committed', () => {
    runAll([request('later', 'one'), request('fail', 'two')]);
    expect(ran).toEqual(['one']);
  });

  it('are split into transactions by count and by bytes; a request larger than the bound runs alone', () => {
    const before = walCommitCount(file);
    const pending = [
      ...['a', 'b', 'c', 'd', 'e'].map((text) => request('note', text)),
      request('note', 'big', 500),
      request('note', 'f', 60),
      request('note', 'g', 60),
    ];
    const batches = runAll(pending);
    expect(batches.map((batch) => batch.length)).toEqual([4, 1, 1, 1, 1]);
    expect(walCommitCount(file) - before).toBe(5);
    expect(stored()).toEqual(['a', 'b', 'c', 'd', 'e', 'big', 'f', 'g']);
  });

  it('take small independent requests ahead of large ones queued before them, and nothing else out of order', () => {
    const independent = (text: string, bytes = 10): WriteRequest => ({
      ...request('note', text, bytes),
      independent: true,
    });
    const pending = [
      request('note', 'large-1', 90),
      request('note', 'large-2', 90),
      request('note', 'in-order', 5),
      independent('small-1'),
      independent('large-independent', SMALL_REQUEST_BYTES),
      independent('small-2'),
      { ...request('note', 'barrier'), outsideTransaction: true },
      independent('after-barrier'),
    ];
    const batches = runAll(pending);
    // the small independent ones went first; the rest in order, none passing the barrier
    expect(stored()).toEqual([
      'small-1',
      'small-2',
      'large-1',
      'large-2',
      'in-order',
      'large-independent',
      'barrier',
      'after-barrier',
    ]);
    // (a batch is bounded by bytes: the small ones, then each large one as the bound allows)
    expect(batches.map((batch) => batch.length)).toEqual([2, 1, 2, 1, 1, 1]);
  });
});

describe('while another connection holds the write lock', () => {
  let holder: Database.Database;

  beforeEach(() => {
    holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
  });

  afterEach(() => {
    if (holder.inTransaction) holder.exec('ROLLBACK');
    holder.close();
  });

  it('answers each request StoreBusyError once its deadline passed, writing nothing', () => {
    let clock = 1_000;
    const batches = runAll(
      [request('note', 'a', 10, 1_050), request('note', 'b', 10, 1_100)],
      () => {
        clock += 40;
        return [];
      },
      () => clock,
    );
    const outcomes = batches.flat();
    expect(outcomes.map((outcome) => outcome.seq)).toEqual([seq - 1, seq]);
    for (const outcome of outcomes) {
      if (outcome.ok) throw new Error('a write went through a held lock');
      expect(deserializeError(outcome.error)).toBeInstanceOf(StoreBusyError);
      expect(outcome.error.code).toBe('SQLITE_BUSY');
    }
    expect(stored()).toEqual([]);
  });

  it('lets requests that arrive meanwhile join the batch, and writes them all once the lock is free', () => {
    let looks = 0;
    const late = request('note', 'late');
    const before = walCommitCount(file);
    const batches = runAll([request('note', 'early')], () => {
      looks += 1;
      if (looks === 2) return [late];
      if (looks === 3) holder.exec('ROLLBACK');
      return [];
    });
    expect(looks).toBeGreaterThanOrEqual(3);
    expect(batches).toHaveLength(1);
    expect(batches[0]?.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(walCommitCount(file) - before).toBe(1);
    expect(stored()).toEqual(['early', 'late']);
  });
});
