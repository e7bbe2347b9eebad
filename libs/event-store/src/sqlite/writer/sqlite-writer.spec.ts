import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { walCommitCount } from '@strata/testing';
import { ConcurrencyError } from '../../port';
import { SqliteEventStore } from '../sqlite-event-store';
import { openStrataDatabase } from '../sqlite-database';
import { acquireSqliteWriter, SqliteWriterStoppedError, type SqliteWriter } from './sqlite-writer';
import { StoreBusyError } from './sqlite-write-protocol';
import { testOperations } from './sqlite-writer.spec-operations';

let directory: string;
let file: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-writer-'));
  file = join(directory, 'events.db');
});

afterEach(() => rmSync(directory, { recursive: true, force: true }));

function eventOf(id: number) {
  return { id: `0195d3a0-0000-7000-8000-${id.toString().padStart(12, '0')}`, type: 'Noted', data: { id } };
}

describe('the SQLite event store on its writer thread', () => {
  let store: SqliteEventStore;

  beforeEach(() => {
    store = new SqliteEventStore({ filename: file });
  });

  afterEach(() => store.close());

  it('commits appends to different streams that arrive together in one transaction', async () => {
    await store.appendToStream('warm-up', [eventOf(0)]);
    const before = walCommitCount(file);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => store.appendToStream(`stream-${index}`, [eventOf(index + 1)])),
    );
    expect(walCommitCount(file) - before).toBe(1);
    expect(new Set(results.map((result) => result.position)).size).toBe(20);
    for (let index = 0; index < 20; index += 1) {
      const read = [];
      for await (const event of store.readStream(`stream-${index}`)) read.push(event.id);
      expect(read).toEqual([eventOf(index + 1).id]);
    }
  });

  it('fails only the append whose expectation does not hold in a batch', async () => {
    await store.appendToStream('shared', [eventOf(1)]);
    const outcomes = await Promise.allSettled([
      store.appendToStream('shared', [eventOf(2)], { expectedRevision: 0n }),
      store.appendToStream('shared', [eventOf(3)], { expectedRevision: 0n }),
      store.appendToStream('other', [eventOf(4)], { expectedRevision: 'no_stream' }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = outcomes[1];
    expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(ConcurrencyError);
    expect(refused?.status === 'rejected' && (refused.reason as ConcurrencyError).actual).toBe(1n);
    expect(await store.streamRevision('shared')).toBe(1n);
    expect(await store.streamRevision('other')).toBe(0n);
  });

  it('flushes every commit to disk (synchronous = FULL) unless NORMAL is asked for', async () => {
    expect(await store.writerPragma('synchronous')).toBe(2n);
    const other = join(directory, 'normal.db');
    const relaxed = new SqliteEventStore({ filename: other, synchronous: 'normal' });
    try {
      expect(await relaxed.writerPragma('synchronous')).toBe(1n);
    } finally {
      await relaxed.close();
    }
  });

  it('refuses writes on its own read connection, so nothing can bypass the writer', () => {
    expect(() => store.database.exec("INSERT INTO stream_metadata VALUES ('s', '{}')")).toThrow(/readonly/i);
  });
});

describe('a write while another connection holds the write lock', () => {
  let holder: Database.Database;

  beforeEach(() => {
    openStrataDatabase({ filename: file }).close();
    holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
  });

  afterEach(() => {
    if (holder.inTransaction) holder.exec('ROLLBACK');
    holder.close();
  });

  it('waits off the event loop and is refused StoreBusyError after the busy timeout', async () => {
    const store = new SqliteEventStore({ filename: file, busyTimeoutMs: 1_500 });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    try {
      const started = Date.now();
      const refusal = await store.appendToStream('s', [eventOf(1)]).then(
        () => undefined,
        (error: unknown) => error,
      );
      delay.disable();
      expect(refusal).toBeInstanceOf(StoreBusyError);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
      // The wait happened on the writer thread: the event loop never stopped for a whole second.
      expect(delay.max / 1e6).toBeLessThan(1_000);
      expect(await store.streamRevision('s')).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('goes through once the lock is released before its deadline', async () => {
    const store = new SqliteEventStore({ filename: file, busyTimeoutMs: 60_000 });
    try {
      const appended = store.appendToStream('s', [eventOf(1)]);
      const released = new Promise<void>((resolve) =>
        setTimeout(() => {
          holder.exec('ROLLBACK');
          resolve();
        }, 200),
      );
      await released;
      expect((await appended).nextExpectedRevision).toBe(0n);
    } finally {
      await store.close();
    }
  });
});

describe('the writer thread', () => {
  let writer: SqliteWriter;

  beforeEach(() => {
    writer = acquireSqliteWriter(file, { synchronous: 'full', busyTimeoutMs: 10_000 });
  });

  afterEach(() => writer.close());

  it('answers each write with what its operation returned', async () => {
    await expect(writer.write(testOperations.note, { text: 'one' })).resolves.toBe('noted one');
  });

  it('fails the writes of a thread that ended, and starts a new thread for the next write', async () => {
    await writer.write(testOperations.note, { text: 'before' });
    const crashed = writer.write(testOperations.crash, {});
    await expect(crashed).rejects.toBeInstanceOf(SqliteWriterStoppedError);
    await expect(writer.write(testOperations.note, { text: 'after' })).resolves.toBe('noted after');
    const reader = new Database(file, { readonly: true });
    try {
      expect(reader.prepare('SELECT text FROM notes ORDER BY rowid').pluck().all()).toEqual([
        'before',
        'after',
      ]);
    } finally {
      reader.close();
    }
  });

  it('sends the writes of separate callbacks of one turn of the event loop in one message', async () => {
    await writer.write(testOperations.note, { text: 'thread started' });
    const posted = jest.spyOn(Worker.prototype, 'postMessage');
    try {
      // as the requests read from several sockets in one turn: each callback writes on its own
      const answers = await Promise.all(
        Array.from(
          { length: 10 },
          (_, index) =>
            new Promise<unknown>((resolve, reject) =>
              setImmediate(() => {
                writer.write(testOperations.note, { text: `${index}` }).then(resolve, reject);
              }),
            ),
        ),
      );
      expect(answers).toEqual(Array.from({ length: 10 }, (_, index) => `noted ${index}`));
      expect(posted).toHaveBeenCalledTimes(1);
      expect(posted.mock.calls[0]?.[0]).toMatchObject({ type: 'requests', requests: expect.any(Array) });
      expect((posted.mock.calls[0]?.[0] as { requests: unknown[] }).requests).toHaveLength(10);
    } finally {
      posted.mockRestore();
    }
  });

  it('refuses writes once its last user closed it', async () => {
    await writer.close();
    await expect(writer.write(testOperations.note, { text: 'late' })).rejects.toBeInstanceOf(
      SqliteWriterStoppedError,
    );
  });
});
