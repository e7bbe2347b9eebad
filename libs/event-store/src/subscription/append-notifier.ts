// Wakes waiting subscriptions when events are appended, so that live subscriptions sleep
// instead of polling. A version counter closes the gap between "read found nothing" and "wait".

/** A pending wait; `cancel` resolves it early (used when a subscription closes). */
export interface PendingWait {
  readonly done: Promise<void>;
  cancel(): void;
}

export class AppendNotifier {
  private currentVersion = 0;
  private readonly waiters = new Set<() => void>();
  private readonly waitingListeners = new Set<(waiting: boolean) => void>();

  /** Changes on every `notify()`. Read it before looking for new events, then wait on it. */
  get version(): number {
    return this.currentVersion;
  }

  get hasWaiters(): boolean {
    return this.waiters.size > 0;
  }

  notify(): void {
    this.currentVersion += 1;
    const woken = [...this.waiters];
    this.waiters.clear();
    for (const wake of woken) wake();
    if (woken.length > 0) this.announceWaiting();
  }

  /** Resolves at the first notification after `sinceVersion` (at once if one already happened). */
  waitForChange(sinceVersion: number): PendingWait {
    if (sinceVersion !== this.currentVersion) return { done: Promise.resolve(), cancel: () => undefined };
    let wake: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const hadWaiters = this.hasWaiters;
    this.waiters.add(wake);
    if (!hadWaiters) this.announceWaiting();
    return {
      done,
      cancel: () => {
        if (this.waiters.delete(wake) && !this.hasWaiters) this.announceWaiting();
        wake();
      },
    };
  }

  /** Calls back with true when the first waiter arrives and false when the last one leaves. */
  onWaitingChange(listener: (waiting: boolean) => void): () => void {
    this.waitingListeners.add(listener);
    return () => this.waitingListeners.delete(listener);
  }

  private announceWaiting(): void {
    const waiting = this.hasWaiters;
    for (const listener of this.waitingListeners) listener(waiting);
  }
}
