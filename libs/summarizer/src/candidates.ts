// Runs one summary request over an ordered list of candidate summarisers (reference §5.5):
// temporary failures are retried on the same candidate with exponential backoff raised to the
// server's retry hint; anything else, or a wait above the cap, moves on to the next candidate.
// The caller's abort signal stops everything, the backoff sleep included.
import { SummarizerError, abortedError, toSummarizerError } from './errors/summarizer-error';
import type { Summarizer, SummaryRequest, SummaryResult } from './summarizer.port';

export interface RetryPolicy {
  /** Whether temporary failures are retried at all (default true). */
  readonly enabled: boolean;
  /** Retries per candidate after its first attempt (default 3). */
  readonly maxRetries: number;
  /** The first backoff; attempt n waits `baseDelayMs × 2^n` (default 2,000 ms). */
  readonly baseDelayMs: number;
  /** A wait above this moves on to the next candidate instead (default 30,000 ms). */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  enabled: true,
  maxRetries: 3,
  baseDelayMs: 2000,
  maxDelayMs: 30_000,
};

/** Waits `milliseconds`; rejects (with any error) as soon as `signal` aborts. */
export type Sleep = (milliseconds: number, signal?: AbortSignal) => Promise<void>;

/** What happens after a failed attempt. */
export type AfterFailure =
  | { readonly action: 'retry'; readonly delayMs: number }
  | { readonly action: 'next_candidate' }
  | { readonly action: 'give_up' };

export interface AttemptFailure {
  readonly summarizer: string;
  /** 0 for a candidate's first attempt. */
  readonly attempt: number;
  readonly error: SummarizerError;
  readonly next: AfterFailure;
  /** How long the failed attempt took, on the `now` clock (the backoff after it not included). */
  readonly durationMs: number;
}

export interface RunCandidatesOptions {
  readonly signal?: AbortSignal;
  readonly retry?: Partial<RetryPolicy>;
  /** Defaults to a timer-based sleep; tests inject one that records the waits. */
  readonly sleep?: Sleep;
  /** Told about every failed attempt and what follows it (for logs and events). */
  readonly onAttemptFailed?: (failure: AttemptFailure) => void;
  /** The clock attempts are timed with, in milliseconds; `Date.now` by default. */
  readonly now?: () => number;
}

export interface CandidateOutcome {
  readonly result: SummaryResult;
  /** The summariser that answered. */
  readonly summarizer: Summarizer;
  /** Its position in the de-duplicated candidate list. */
  readonly candidateIndex: number;
  /** Attempts made over all candidates, the successful one included. */
  readonly attempts: number;
  /** 0 when the candidate answered at its first attempt, else the retries it took. */
  readonly attempt: number;
  /** How long the successful attempt took, on the `now` clock. */
  readonly durationMs: number;
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('The operation was aborted', { cause: reason });
}

export const timerSleep: Sleep = (milliseconds, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** The candidates in order, without repeats (same object or same `name`). */
export function distinctCandidates(candidates: readonly Summarizer[]): Summarizer[] {
  const seen = new Set<string>();
  const distinct: Summarizer[] = [];
  for (const candidate of candidates) {
    if (seen.has(candidate.name)) continue;
    seen.add(candidate.name);
    distinct.push(candidate);
  }
  return distinct;
}

function afterFailure(
  error: SummarizerError,
  attempt: number,
  isLastCandidate: boolean,
  policy: RetryPolicy,
): AfterFailure {
  const moveOn: AfterFailure = isLastCandidate ? { action: 'give_up' } : { action: 'next_candidate' };
  if (!policy.enabled || error.kind !== 'retryable' || attempt >= policy.maxRetries) return moveOn;
  const delayMs = Math.max(policy.baseDelayMs * 2 ** attempt, error.retryAfterMs ?? 0);
  return delayMs > policy.maxDelayMs ? moveOn : { action: 'retry', delayMs };
}

/**
 * Summarises with the first candidate that succeeds. Throws the last candidate's last error when
 * all fail, a `no_candidate` error for an empty list, and an `aborted` error as soon as the
 * signal aborts (before, during or between attempts).
 */
export async function summarizeWithCandidates(
  candidates: readonly Summarizer[],
  request: SummaryRequest,
  options: RunCandidatesOptions = {},
): Promise<CandidateOutcome> {
  const { signal } = options;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const sleep = options.sleep ?? timerSleep;
  const now = options.now ?? Date.now;
  const distinct = distinctCandidates(candidates);
  let attempts = 0;
  let lastError: SummarizerError | undefined;

  for (const [candidateIndex, summarizer] of distinct.entries()) {
    for (let attempt = 0; ; attempt += 1) {
      if (isAborted(signal)) throw abortedError(summarizer.name, signal?.reason);
      attempts += 1;
      let error: SummarizerError;
      const startedAt = now();
      const elapsed = (): number => Math.max(0, now() - startedAt);
      try {
        const result = await summarizer.summarize(request, signal);
        return { result, summarizer, candidateIndex, attempts, attempt, durationMs: elapsed() };
      } catch (thrown) {
        error = toSummarizerError(thrown, summarizer.name, signal);
      }
      if (error.kind === 'aborted') throw error;
      if (isAborted(signal)) throw abortedError(summarizer.name, error);
      lastError = error;
      const next = afterFailure(error, attempt, candidateIndex === distinct.length - 1, policy);
      options.onAttemptFailed?.({ summarizer: summarizer.name, attempt, error, next, durationMs: elapsed() });
      if (next.action !== 'retry') break;
      try {
        await sleep(next.delayMs, signal);
      } catch (interruption) {
        throw abortedError(summarizer.name, interruption);
      }
    }
  }
  throw (
    lastError ??
    new SummarizerError({
      code: 'no_candidate',
      message: 'Summary failed: no summariser available',
      summarizer: 'none',
    })
  );
}
