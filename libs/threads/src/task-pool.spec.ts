import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { TaskFailedError } from './task-protocol';
import { TaskPool, TaskPoolStoppedError, TaskQueueFullError, defaultThreadCount } from './task-pool';
import { LineError } from './testing/pool-test-tasks';

const TASKS = join(__dirname, 'testing', 'pool-test-tasks.ts');

/** Atomics.waitAsync (Node 16+), which TypeScript's library for this target does not declare. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(cells: Int32Array, index: number, value: number): { async: boolean; value: unknown };
  }
).waitAsync;

/** A gate that blocks the tasks waiting on it until it is opened. */
function gate() {
  const buffer = new SharedArrayBuffer(8);
  const cells = new Int32Array(buffer);
  return {
    buffer,
    /** Resolves once `count` tasks are blocked on the gate. */
    async entered(count: number): Promise<void> {
      for (;;) {
        const seen = Atomics.load(cells, 1);
        if (seen >= count) return;
        const waited = waitAsync(cells, 1, seen);
        if (waited.async) await waited.value;
      }
    },
    open(): void {
      Atomics.store(cells, 0, 1);
      Atomics.notify(cells, 0);
    },
  };
}

describe('TaskPool', () => {
  let pool: TaskPool;

  afterEach(() => pool.close());

  it('runs a task on a worker thread and answers its value, sync or async', async () => {
    pool = new TaskPool({ threads: 1, maxQueued: 4 });
    const answer = await pool.run<{ text: string; main: boolean; thread: number }>(TASKS, 'describeThread', {
      text: 'abc',
    });
    expect(answer).toMatchObject({ text: 'ABC', main: false });
    expect(answer.thread).not.toBe(threadId);
    await expect(pool.run(TASKS, 'resolveLater', { value: 21 })).resolves.toBe(42);
  });

  it('moves transferred buffers to the thread instead of copying them', async () => {
    pool = new TaskPool({ threads: 1, maxQueued: 4 });
    const bytes = new TextEncoder().encode('moved');
    const answer = pool.run<number>(TASKS, 'byteLengthOf', { bytes }, { transfer: [bytes.buffer] });
    expect(bytes.byteLength).toBe(0);
    await expect(answer).resolves.toBe(5);
  });

  it("turns a task's error back into the caller's class, or a TaskFailedError naming it", async () => {
    pool = new TaskPool({ threads: 1, maxQueued: 4 });
    const revived = pool.run(
      TASKS,
      'failAtLine',
      { line: 7 },
      {
        revive: (failure) =>
          failure.name === 'LineError'
            ? new LineError(failure.fields['line'] as number, failure.fields['code'] as string)
            : undefined,
      },
    );
    await expect(revived).rejects.toEqual(new LineError(7, 'bad-line'));
    await expect(revived).rejects.toBeInstanceOf(LineError);
    const plain = pool.run(TASKS, 'failAtLine', { line: 9 });
    await expect(plain).rejects.toBeInstanceOf(TaskFailedError);
    await expect(plain).rejects.toMatchObject({ failure: { name: 'LineError', fields: { line: 9 } } });
    await expect(pool.run(TASKS, 'noSuchTask', {})).rejects.toThrow(/has no task noSuchTask/);
  });

  it('runs tasks side by side up to its threads, queues the next ones and refuses beyond the bound', async () => {
    pool = new TaskPool({ threads: 2, maxQueued: 1 });
    const blocked = gate();
    const running = [1, 2].map(() => pool.run<number>(TASKS, 'waitForGate', { gate: blocked.buffer }));
    await blocked.entered(2);
    const queued = pool.run<number>(TASKS, 'waitForGate', { gate: blocked.buffer });
    expect(pool.load).toEqual({ running: 2, queued: 1 });
    await expect(pool.run(TASKS, 'describeThread', { text: 'x' })).rejects.toBeInstanceOf(TaskQueueFullError);
    blocked.open();
    const threads = await Promise.all([...running, queued]);
    expect(new Set(threads.slice(0, 2)).size).toBe(2);
    expect(pool.load).toEqual({ running: 0, queued: 0 });
  });

  it('fails only the task of a thread that dies, and carries on with a new thread', async () => {
    pool = new TaskPool({ threads: 1, maxQueued: 4 });
    await expect(pool.run(TASKS, 'endThread', {})).rejects.toThrow(/exited \(code 3\)/);
    await expect(pool.run(TASKS, 'describeThread', { text: 'after' })).resolves.toMatchObject({
      text: 'AFTER',
    });
  });

  it('fails running and waiting tasks when closed, and every task after', async () => {
    pool = new TaskPool({ threads: 1, maxQueued: 4 });
    const blocked = gate();
    const running = pool.run(TASKS, 'waitForGate', { gate: blocked.buffer });
    await blocked.entered(1);
    const waiting = pool.run(TASKS, 'describeThread', { text: 'x' });
    const outcomes = Promise.allSettled([running, waiting]);
    await pool.close();
    const [runningOutcome, waitingOutcome] = await outcomes;
    expect(runningOutcome).toMatchObject({ status: 'rejected', reason: expect.any(TaskPoolStoppedError) });
    expect(waitingOutcome).toMatchObject({ status: 'rejected', reason: expect.any(TaskPoolStoppedError) });
    await expect(pool.run(TASKS, 'describeThread', { text: 'x' })).rejects.toBeInstanceOf(
      TaskPoolStoppedError,
    );
  });

  it('refuses a pool without threads and defaults to 1 to 4 threads', () => {
    expect(() => new TaskPool({ threads: 0, maxQueued: 1 })).toThrow(RangeError);
    pool = new TaskPool({ threads: 1, maxQueued: 1 });
    expect(defaultThreadCount()).toBeGreaterThanOrEqual(1);
    expect(defaultThreadCount()).toBeLessThanOrEqual(4);
  });
});
