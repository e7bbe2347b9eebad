// The per-request deadline shared by the network providers. Each call gets its own timer signal
// joined with the caller's, so a timeout and a caller abort are told apart by which one fired,
// not by inspecting whatever error the HTTP stack raised.

/** Per-request timeout of a summary call when none is configured (five minutes). */
export const DEFAULT_SUMMARY_TIMEOUT_MS = 300_000;

/** Added to the SDKs' own timeout so that ours always fires first; theirs is only a backstop. */
export const SDK_TIMEOUT_SLACK_MS = 5000;

export interface RequestDeadline {
  /** Aborts when the caller aborts or the deadline passes. */
  readonly signal: AbortSignal;
  /** True once the deadline (not the caller) has fired. */
  timedOut(): boolean;
}

export function requestDeadline(timeoutMs: number, callerSignal?: AbortSignal): RequestDeadline {
  const timer = AbortSignal.timeout(timeoutMs);
  return {
    signal: callerSignal === undefined ? timer : AbortSignal.any([callerSignal, timer]),
    timedOut: () => timer.aborted && callerSignal?.aborted !== true,
  };
}
