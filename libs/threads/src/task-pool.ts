// A small pool of worker threads for CPU-heavy work that must not hold the event loop that
// answers requests (parsing, checking and sealing a large session file). Tasks wait in one
// bounded first-come queue: the HTTP edge already shares write work between tenants before a
// body is read (fair admission), so what reaches the pool is each tenant's fair share, and a
// full queue is refused at once (`TaskQueueFullError`) instead of growing without bound. A
// thread that dies fails only its own task and is replaced. Threads start when first needed.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { TransferListItem, Worker } from 'node:worker_threads';
import { startModuleWorker } from './module-worker';
import {
  TaskFailedError,
  type SerializedTaskError,
  type TaskOutcome,
  type TaskRequest,
} from './task-protocol';

/** Turns a task's error back into one of the caller's classes; undefined keeps TaskFailedError. */
export type TaskErrorReviver = (failure: SerializedTaskError) => Error | undefined;

export interface TaskPoolOptions {
  /** Worker threads (at least 1). */
  readonly threads: number;
  /** Tasks that may wait for a thread; one more is refused with TaskQueueFullError. */
  readonly maxQueued: number;
}

/** The pool's queue is full: the caller should answer "try again" rather than wait. */
export class TaskQueueFullError extends Error {
  override readonly name = 'TaskQueueFullError';

  constructor(readonly maxQueued: number) {
    super(`the worker threads are busy and ${maxQueued} tasks already wait for them`);
  }
}

/** The pool was closed: no task runs any more. */
export class TaskPoolStoppedError extends Error {
  override readonly name = 'TaskPoolStoppedError';

  constructor() {
    super('the worker thread pool is stopped');
  }
}

/** The default thread count: every core but the one the event loop runs on, 1 to 4. */
export function defaultThreadCount(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

interface PendingTask {
  readonly request: TaskRequest;
  readonly revive: TaskErrorReviver | undefined;
  /** Moved to the thread instead of copied (the caller gives them up). */
  readonly transfer: readonly TransferListItem[];
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface PoolThread {
  readonly worker: Worker;
  running: PendingTask | undefined;
}

const THREAD_MODULE = join(__dirname, `task-thread.worker${__filename.endsWith('.ts') ? '.ts' : '.js'}`);

export class TaskPool {
  private readonly threads: PoolThread[] = [];
  private readonly queue: PendingTask[] = [];
  private nextId = 1;
  private stopped = false;

  constructor(private readonly options: TaskPoolOptions) {
    if (!Number.isSafeInteger(options.threads) || options.threads < 1) {
      throw new RangeError(`a task pool needs at least one thread, not ${options.threads}`);
    }
  }

  /** Tasks running and waiting (for metrics and tests). */
  get load(): { readonly running: number; readonly queued: number } {
    return { running: this.threads.filter((thread) => thread.running).length, queued: this.queue.length };
  }

  /** Runs `task` of the module at `module` (an absolute path) on a thread of the pool. */
  run<Result>(
    module: string,
    task: string,
    args: unknown,
    options: { readonly revive?: TaskErrorReviver; readonly transfer?: readonly TransferListItem[] } = {},
  ): Promise<Result> {
    if (this.stopped) return Promise.reject(new TaskPoolStoppedError());
    if (this.queue.length >= this.options.maxQueued && this.idleThread() === undefined) {
      return Promise.reject(new TaskQueueFullError(this.options.maxQueued));
    }
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({
        request: { id: this.nextId++, module, task, args },
        revive: options.revive,
        transfer: options.transfer ?? [],
        resolve,
        reject,
      });
      this.dispatch();
    });
  }

  /** Stops every thread; running and waiting tasks fail with TaskPoolStoppedError. */
  async close(): Promise<void> {
    this.stopped = true;
    for (const pending of this.queue.splice(0)) pending.reject(new TaskPoolStoppedError());
    const threads = this.threads.splice(0);
    for (const thread of threads) thread.running?.reject(new TaskPoolStoppedError());
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  private idleThread(): PoolThread | undefined {
    const idle = this.threads.find((thread) => thread.running === undefined);
    if (idle !== undefined || this.threads.length >= this.options.threads) return idle;
    return this.startThread();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const thread = this.idleThread();
      if (thread === undefined) return;
      const pending = this.queue.shift()!;
      thread.running = pending;
      // a running task keeps the process alive, as a promise of the main thread cannot
      thread.worker.ref();
      thread.worker.postMessage(pending.request, pending.transfer as TransferListItem[]);
    }
  }

  private startThread(): PoolThread {
    const thread: PoolThread = { worker: startModuleWorker(THREAD_MODULE), running: undefined };
    thread.worker.on('message', (outcome: TaskOutcome) => {
      const pending = thread.running;
      thread.running = undefined;
      thread.worker.unref();
      if (pending !== undefined) settle(pending, outcome);
      this.dispatch();
    });
    const lost = (error: Error) => {
      const index = this.threads.indexOf(thread);
      if (index < 0) return;
      this.threads.splice(index, 1);
      thread.running?.reject(error);
      thread.running = undefined;
      if (!this.stopped) this.dispatch();
    };
    thread.worker.on('error', lost);
    thread.worker.on('exit', (code) =>
      lost(new Error(`a worker thread of the task pool exited (code ${code})`)),
    );
    // an idle thread does not keep the process alive
    thread.worker.unref();
    this.threads.push(thread);
    return thread;
  }
}

function settle(pending: PendingTask, outcome: TaskOutcome): void {
  if (outcome.ok) {
    pending.resolve(outcome.value);
    return;
  }
  pending.reject(pending.revive?.(outcome.error) ?? new TaskFailedError(pending.request.task, outcome.error));
}
