// Counting that shares the event loop: long counts run in slices, asking `due()` between steps
// and awaiting `yield()` once a slice has run its length, so that the engine serves other
// requests and timers between slices. The context projection passes its own slices (WorkSlices
// has this shape), so that a read's counting and the rest of its work share one clock.
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface CountingSlices {
  /** Whether the current slice has run its length. */
  due(): boolean;
  /** Gives the event loop a turn and starts a new slice. */
  yield(): Promise<void>;
}

/** How long a counting slice runs before it yields, in milliseconds. */
export const COUNTING_SLICE_MS = 20;

export class TimedCountingSlices implements CountingSlices {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs: number = COUNTING_SLICE_MS) {}

  due(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  async yield(): Promise<void> {
    await nextTurn();
    this.sliceStart = performance.now();
  }
}
