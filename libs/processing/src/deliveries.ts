// Delivering one event to a processor: up to `maxDeliveries` tries, the first included, with a
// pause before each retry that doubles from `retryDelayMs`. Each failed try is reported; when
// the runner stops (the signal aborts) the event is left as it is, neither handled nor failed.

export interface DeliveryPolicy<Failure> {
  readonly maxDeliveries: number;
  readonly retryDelayMs: number;
  readonly signal: AbortSignal;
  /** A try failed (not because the runner stopped); returns the failure as reported. */
  readonly onFailedTry: (delivery: number, error: unknown) => Failure;
}

export type DeliveryOutcome<Failure> =
  | { readonly kind: 'handled' }
  | { readonly kind: 'aborted' }
  /** The last try failed too. */
  | { readonly kind: 'exhausted'; readonly error: unknown; readonly failure: Failure };

/** Tries `attempt` (given the delivery's number, from 1) until it succeeds or the tries run out. */
export async function deliver<Failure>(
  attempt: (delivery: number) => Promise<void>,
  policy: DeliveryPolicy<Failure>,
): Promise<DeliveryOutcome<Failure>> {
  for (let delivery = 1; ; delivery += 1) {
    try {
      await attempt(delivery);
      return { kind: 'handled' };
    } catch (error) {
      if (policy.signal.aborted) return { kind: 'aborted' };
      const failure = policy.onFailedTry(delivery, error);
      if (delivery >= policy.maxDeliveries) return { kind: 'exhausted', error, failure };
      const delay = policy.retryDelayMs * 2 ** (delivery - 1);
      if (!(await pause(delay, policy.signal))) return { kind: 'aborted' };
    }
  }
}

/** Waits `milliseconds`; false when `signal` aborted first. */
function pause(milliseconds: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, milliseconds);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
