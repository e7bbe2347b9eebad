// The engine's one source of time, injected so tests can fix it (STYLE.md habit 4).

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function isoTimestamp(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}
