import { WorkSlice } from './work-slice';

/** A clock the test moves by hand. */
function manualClock(): { now: () => number; advance: (milliseconds: number) => void } {
  let time = 1_000;
  return {
    now: () => time,
    advance: (milliseconds) => {
      time += milliseconds;
    },
  };
}

/** A `defer` that runs the resumptions only when the test says so. */
function manualDefer(): { defer: (resume: () => void) => void; runAll: () => number } {
  const waiting: (() => void)[] = [];
  return {
    defer: (resume) => waiting.push(resume),
    runAll: () => {
      const count = waiting.length;
      for (const resume of waiting.splice(0)) resume();
      return count;
    },
  };
}

function busyFor(milliseconds: number): void {
  const until = performance.now() + milliseconds;
  while (performance.now() < until) {
    // burns the slice on purpose
  }
}

describe('a work slice', () => {
  describe('given a slice that has not used its budget', () => {
    it('is not due, and becomes due once the budget has passed', () => {
      const clock = manualClock();
      const slice = new WorkSlice({ budgetMs: 10, now: clock.now, defer: manualDefer().defer });
      expect(slice.isDue).toBe(false);
      clock.advance(9.9);
      expect(slice.isDue).toBe(false);
      clock.advance(0.1);
      expect(slice.isDue).toBe(true);
    });
  });

  describe('given a yield under way', () => {
    it('resolves only once the event loop has had its turn, and starts a new slice', async () => {
      const clock = manualClock();
      const deferred = manualDefer();
      const slice = new WorkSlice({ budgetMs: 10, now: clock.now, defer: deferred.defer });
      clock.advance(25);
      let resumed = false;
      const yielded = slice.yield().then(() => {
        resumed = true;
      });
      await Promise.resolve();
      expect(resumed).toBe(false);
      expect(deferred.runAll()).toBe(1);
      await yielded;
      expect(resumed).toBe(true);
      expect(slice.isDue).toBe(false);
      expect(slice.yields).toBe(1);
    });

    it('is due for every loop that asks, and they all wait for the same turn', async () => {
      const clock = manualClock();
      const deferred = manualDefer();
      const slice = new WorkSlice({ budgetMs: 10, now: clock.now, defer: deferred.defer });
      clock.advance(10);
      const first = slice.yield();
      clock.advance(-10);
      expect(slice.isDue).toBe(true);
      const second = slice.yield();
      expect(second).toBe(first);
      expect(deferred.runAll()).toBe(1);
      await Promise.all([first, second]);
      expect(slice.yields).toBe(1);
    });
  });

  it('refuses a budget that is not a number of milliseconds', () => {
    expect(() => new WorkSlice({ budgetMs: -1 })).toThrow(RangeError);
    expect(() => new WorkSlice({ budgetMs: Number.NaN })).toThrow(RangeError);
  });

  describe('given a loop of promise-only steps on the real event loop', () => {
    const steps = 400;
    const stepMs = 0.25;

    async function runLoop(slice: WorkSlice | undefined, onStep: (step: number) => void): Promise<void> {
      for (let step = 1; step <= steps; step += 1) {
        if (slice?.isDue === true) await slice.yield();
        busyFor(stepMs);
        onStep(step);
        await Promise.resolve();
      }
    }

    it('without a slice, a timer waits for the whole loop (what the slice is for)', async () => {
      let done = 0;
      let stepsWhenTimerRan: number | undefined;
      setTimeout(() => {
        stepsWhenTimerRan = done;
      }, 0);
      await runLoop(undefined, (step) => {
        done = step;
      });
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(stepsWhenTimerRan).toBe(steps);
    });

    it('lets timers run between slices, yielding once per slice rather than once per step', async () => {
      const slice = new WorkSlice({ budgetMs: 10 });
      let done = 0;
      const timerRuns: number[] = [];
      const tick = (): void => {
        timerRuns.push(done);
        if (done < steps) setTimeout(tick, 0);
      };
      setTimeout(tick, 0);
      await runLoop(slice, (step) => {
        done = step;
      });
      // The timer ran while the loop was still going, more than once.
      expect(timerRuns.filter((stepsSoFar) => stepsSoFar < steps).length).toBeGreaterThan(1);
      // 400 steps of at least 0.25 ms in 10 ms slices: a yield per step would be 400.
      expect(slice.yields).toBeGreaterThan(0);
      expect(slice.yields).toBeLessThan(steps / 4);
    });
  });
});
