// Why the engine is not ready to serve, as the `reason` of the 503 answer of `GET /ready`
// (docs/decisions/0010): the store does not answer, the read models are still catching up with
// the store (start-up, a rebuild), they failed and start again after a pause, or they are
// stopped (the engine is stopping). Each reason says how long a caller should wait.
import type { RunnerState } from '@strata/processing';

export type NotReadyReason =
  'store_unavailable' | 'catching_up' | 'read_models_failed' | 'read_models_stopped';

export interface NotReady {
  readonly reason: NotReadyReason;
  readonly detail: string;
  /** The `Retry-After` of the answer. */
  readonly retryAfterSeconds: number;
}

/** Seconds to wait while the read models catch up: short, they go live at any moment. */
export const CATCHING_UP_RETRY_AFTER_SECONDS = 1;
/** Seconds to wait when something must recover first (the store, a failed runner's restart). */
export const RECOVERY_RETRY_AFTER_SECONDS = 5;

/** Undefined when the engine is ready: the store answers and the read models are live. */
export function notReadyOf(storeAnswers: boolean, readModels: RunnerState): NotReady | undefined {
  if (!storeAnswers) {
    return {
      reason: 'store_unavailable',
      detail: 'the event store does not answer',
      retryAfterSeconds: RECOVERY_RETRY_AFTER_SECONDS,
    };
  }
  switch (readModels) {
    case 'live':
      return undefined;
    case 'catching_up':
      return {
        reason: 'catching_up',
        detail: 'the read models are catching up with the store',
        retryAfterSeconds: CATCHING_UP_RETRY_AFTER_SECONDS,
      };
    case 'failed':
      return {
        reason: 'read_models_failed',
        detail: 'the read models stopped on a failure and start again shortly; see the engine log',
        retryAfterSeconds: RECOVERY_RETRY_AFTER_SECONDS,
      };
    case 'idle':
    case 'stopped':
      return {
        reason: 'read_models_stopped',
        detail: 'the read models are not running (the engine is starting or stopping)',
        retryAfterSeconds: RECOVERY_RETRY_AFTER_SECONDS,
      };
    default: {
      const unhandled: never = readModels;
      throw new Error(`unhandled read-model state ${String(unhandled)}`);
    }
  }
}
