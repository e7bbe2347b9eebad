// Restarting a background loop that failed (a processor runner whose store went away): one
// restart pending at a time, after a pause that doubles from the first delay up to the longest,
// and none once closed. The restart itself decides whether to ask for another (it calls
// `schedule` again when it fails).
export const FIRST_RESTART_DELAY_MS = 250;
export const LONGEST_RESTART_DELAY_MS = 5_000;

export class RestartBackoff {
  private timer: NodeJS.Timeout | undefined;
  private nextDelayMs: number;
  private closed = false;

  constructor(
    private readonly restart: () => Promise<void>,
    private readonly firstDelayMs = FIRST_RESTART_DELAY_MS,
    private readonly longestDelayMs = LONGEST_RESTART_DELAY_MS,
  ) {
    this.nextDelayMs = firstDelayMs;
  }

  /** The pause before the next restart that gets scheduled. */
  get pendingDelayMs(): number {
    return this.nextDelayMs;
  }

  /** Schedules one restart; nothing when one is already pending or after `close`. */
  schedule(): void {
    if (this.closed || this.timer !== undefined) return;
    const delay = this.nextDelayMs;
    this.nextDelayMs = Math.min(delay * 2, this.longestDelayMs);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.closed) void this.restart();
    }, delay);
    this.timer.unref();
  }

  /** Cancels the pending restart, and every later one. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
