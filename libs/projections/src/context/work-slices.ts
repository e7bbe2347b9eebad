// Long synchronous stretches cut into slices: work checks `due()` between units and, when a
// slice has run its length, awaits `yield()`, which lets the event loop serve other work (HTTP
// requests, timers) before the next slice. The context projection counts a session's tokens
// for the first time this way. The projection runner does not slice: yielding there let the
// other subscribers of a burst (sagas, event stream) share its turns, and a read waiting for the
// read models after a 10,000-entry append then outlasted the 2 s read wait and answered 503.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a slice runs before it yields, in milliseconds. */
export const WORK_SLICE_MS = 20;

export class WorkSlices {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs: number = WORK_SLICE_MS) {}

  /** Whether the current slice has run its length. */
  due(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  /** Gives the event loop a turn and starts a new slice. */
  async yield(): Promise<void> {
    await nextTurn();
    this.sliceStart = performance.now();
  }
}
