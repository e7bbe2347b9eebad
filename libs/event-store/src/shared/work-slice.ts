// Cooperative time slices for long loops on the one event loop (issue 22, decision 0010). A loop
// that runs its steps through promises alone (catch-up reads, a runner applying events) never
// lets the loop reach I/O: a connection waits until the whole loop ends. Such a loop asks
// `isDue` between steps and, when the slice has used its budget, awaits `yield()`, which lets
// timers and I/O run (`setImmediate`) before a new slice starts. One process-wide slice is shared
// by every such loop, so that when one yields the others yield with it instead of taking the
// loop over; a step is never interrupted, so a slice lasts its budget plus one step at most.
// Asking is one clock read: loops pay for a yield per slice, never per step.
import { performance } from 'node:perf_hooks';

/** The synchronous work a slice may hold the event loop for before it yields. */
export const DEFAULT_SLICE_BUDGET_MS = 10;

export interface WorkSliceOptions {
  /** Milliseconds of work per slice; `DEFAULT_SLICE_BUDGET_MS` by default. */
  readonly budgetMs?: number;
  /** A monotonic clock in milliseconds; `performance.now` by default. */
  readonly now?: () => number;
  /** Runs `resume` once the event loop has had its turn; `setImmediate` by default. */
  readonly defer?: (resume: () => void) => void;
}

export class WorkSlice {
  readonly budgetMs: number;
  private readonly now: () => number;
  private readonly defer: (resume: () => void) => void;
  private startedAt: number;
  private pending: Promise<void> | undefined;
  private yieldCount = 0;

  constructor(options: WorkSliceOptions = {}) {
    const budgetMs = options.budgetMs ?? DEFAULT_SLICE_BUDGET_MS;
    if (!Number.isFinite(budgetMs) || budgetMs < 0) {
      throw new RangeError(
        `a work slice's budget must be a finite number of milliseconds ≥ 0, not ${budgetMs}`,
      );
    }
    this.budgetMs = budgetMs;
    this.now = options.now ?? (() => performance.now());
    this.defer = options.defer ?? ((resume) => setImmediate(resume));
    this.startedAt = this.now();
  }

  /** Whether the current slice has used its budget (or a yield is under way): then await `yield()`. */
  get isDue(): boolean {
    return this.pending !== undefined || this.now() - this.startedAt >= this.budgetMs;
  }

  /** How many times the event loop was given its turn (for tests and diagnostics). */
  get yields(): number {
    return this.yieldCount;
  }

  /**
   * Resolves once the event loop has run its timers and I/O, and starts a new slice. Every
   * caller that asks while a yield is under way waits for the same one.
   */
  yield(): Promise<void> {
    this.pending ??= new Promise<void>((resolve) => {
      this.defer(() => {
        this.pending = undefined;
        this.yieldCount += 1;
        this.startedAt = this.now();
        resolve();
      });
    });
    return this.pending;
  }
}

/** The slice every catch-up loop of this process shares (one event loop, one budget). */
export const eventLoopSlice = new WorkSlice();

/**
 * Text or bytes from this length on make a step of a request long enough (tens of milliseconds
 * for megabytes: a UTF-8 decode, a JSON parse, a canonical text, an encoding) that the event loop
 * is given its turn after it, so a large write is cut into steps that other requests run between.
 */
export const LARGE_STEP_LENGTH = 1024 * 1024;

/** Resolves once the event loop has had its turn when the step just done was over `length` long, at once otherwise. */
export async function afterLargeStep(length: number): Promise<void> {
  if (length >= LARGE_STEP_LENGTH) await eventLoopSlice.yield();
}
