// How long the event loop goes without a turn while some work runs: a 1 ms interval timer notes
// when it fires, and the longest gap between two firings (or between the start and the first, or
// the last and the end) is the longest stall. A synchronous count shows its whole duration; a
// count in slices shows its longest slice.

export interface LoopStall {
  /** The longest time the loop went without firing the timer, in milliseconds. */
  readonly longestStallMs: number;
  /** How long the work took. */
  readonly durationMs: number;
  /** How often the timer fired meanwhile. */
  readonly timerTurns: number;
}

export async function measureLoopStall(work: () => unknown): Promise<LoopStall> {
  const started = performance.now();
  let last = started;
  let longest = 0;
  let turns = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    turns += 1;
  }, 1);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const ended = performance.now();
  longest = Math.max(longest, ended - last);
  return { longestStallMs: longest, durationMs: ended - started, timerTurns: turns };
}
