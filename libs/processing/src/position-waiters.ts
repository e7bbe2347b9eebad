// Callers waiting for the processors to reach a position: every event at or below it handled
// and flushed, by all of the chosen processors or, for a scope (one partition, one tenant), by
// each of them within that scope only. The runner releases the waiters after each flush and
// event, and rejects them all when it stops or fails.
import { isAfter } from './positions';
import type { WaitScope } from './processor-runner-types';
import { Signal } from './signal';

/** What a wait needs of a processor's slot. */
export interface WaitedSlot {
  readonly flushed: bigint | null;
  hasReached(scope: WaitScope, position: bigint): boolean;
}

export interface PositionWait {
  readonly position: bigint;
  /** Undefined: all of the processors' events. */
  readonly scope: WaitScope | undefined;
  readonly slots: readonly WaitedSlot[];
}

/** Whether the slots of the wait have all reached its position. */
export function isReached(wait: PositionWait): boolean {
  const { scope, position } = wait;
  return wait.slots.every((slot) =>
    scope === undefined ? !isAfter(position, slot.flushed) : slot.hasReached(scope, position),
  );
}

export class PositionWaiters {
  private waiters: { readonly wait: PositionWait; readonly signal: Signal }[] = [];

  /** Resolves once the wait is reached (call `release` when it may have been). */
  add(wait: PositionWait): Promise<void> {
    const signal = new Signal();
    this.waiters.push({ wait, signal });
    return signal.promise;
  }

  /** Resolves the waits now reached. */
  release(): void {
    if (this.waiters.length === 0) return;
    this.waiters = this.waiters.filter((waiter) => {
      if (!isReached(waiter.wait)) return true;
      waiter.signal.resolve();
      return false;
    });
  }

  /** Rejects every wait (the runner stopped or failed). */
  rejectAll(error: Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.signal.reject(error);
  }
}
