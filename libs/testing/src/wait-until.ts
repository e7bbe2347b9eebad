// Waiting on a condition in end-to-end tests: a process, a store file or an engine that changes
// on its own time is asked again until it says yes or the deadline (sized from the work, not from
// a guess of how long it takes) has passed. The short pause between two asks only spaces the
// asks; nothing waits for a fixed time.

export interface WaitUntilOptions {
  /** How long to keep asking; 10 s by default. */
  readonly timeoutMs?: number;
  /** The pause between two asks; 25 ms by default. */
  readonly intervalMs?: number;
  /** More to say when the deadline passes (a process's output, say). */
  readonly detail?: () => string;
}

/** Resolves once `check` answers true; throws naming `what` once `timeoutMs` has passed. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  options: WaitUntilOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      const detail = options.detail?.();
      throw new Error(`not within ${timeoutMs / 1000} s: ${what}${detail ? `\n${detail}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
