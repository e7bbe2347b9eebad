// The channel between the saga runner and the @Saga wrappers (docs/decisions/0003). Nest's
// EventBus subscribes each wrapper's observable once and executes what it emits without
// telling anyone when that ends, so the runner cannot await a plain @Saga. Instead each saga
// reads its deliveries from here, turns each into one step command, and the step reports its
// outcome back through the delivery; `deliver` resolves when every saga has reported.
import { Injectable } from '@nestjs/common';
import { Observable, Subject } from 'rxjs';
import type { SagaCommand, SagaSessionView, SagaTrigger } from './saga-messages';

/** How one saga dealt with one delivery. Failures are data, never thrown. */
export type SagaStepOutcome =
  | { readonly saga: string; readonly status: 'completed'; readonly commands: readonly SagaCommand[] }
  | {
      readonly saga: string;
      readonly status: 'failed';
      readonly commands: readonly SagaCommand[];
      readonly error: unknown;
    };

export interface SagaDelivery {
  readonly trigger: SagaTrigger;
  readonly view: SagaSessionView;
  /** Reports how the saga dealt with the delivery; only the first report counts. */
  settle(outcome: SagaStepOutcome): void;
}

/** A delivery for a saga whose @Saga wrapper is not subscribed (the bus is not up, or shut down). */
export class SagaNotAttachedError extends Error {
  override readonly name = 'SagaNotAttachedError';

  constructor(readonly sagaName: string) {
    super(`saga ${sagaName} is not subscribed to the saga feed`);
  }
}

interface Channel {
  readonly deliveries: Subject<SagaDelivery>;
  subscribers: number;
}

@Injectable()
export class SagaFeed {
  private readonly channels = new Map<string, Channel>();
  private attachmentWaiters: (() => void)[] = [];

  /** The deliveries of one saga, for its @Saga wrapper. */
  deliveriesFor(sagaName: string): Observable<SagaDelivery> {
    return new Observable<SagaDelivery>((subscriber) => {
      const channel = this.channelOf(sagaName);
      const subscription = channel.deliveries.subscribe(subscriber);
      channel.subscribers += 1;
      const waiters = this.attachmentWaiters;
      this.attachmentWaiters = [];
      for (const wake of waiters) wake();
      return () => {
        channel.subscribers -= 1;
        subscription.unsubscribe();
      };
    });
  }

  isAttached(sagaName: string): boolean {
    return (this.channels.get(sagaName)?.subscribers ?? 0) > 0;
  }

  /** Resolves once every named saga is subscribed; rejects when `signal` aborts first. */
  async whenAttached(sagaNames: readonly string[], signal: AbortSignal): Promise<void> {
    while (!sagaNames.every((name) => this.isAttached(name))) {
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void =>
          reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        signal.addEventListener('abort', onAbort, { once: true });
        this.attachmentWaiters.push(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }
  }

  /**
   * Hands the trigger and view to each named saga and resolves with their outcomes, in the
   * order named, once every one has reported. A saga that is not subscribed fails at once.
   */
  deliver(
    sagaNames: readonly string[],
    trigger: SagaTrigger,
    view: SagaSessionView,
  ): Promise<SagaStepOutcome[]> {
    return Promise.all(
      sagaNames.map(
        (saga) =>
          new Promise<SagaStepOutcome>((resolve) => {
            const channel = this.channels.get(saga);
            if (channel === undefined || channel.subscribers === 0) {
              resolve({ saga, status: 'failed', commands: [], error: new SagaNotAttachedError(saga) });
              return;
            }
            let settled = false;
            channel.deliveries.next({
              trigger,
              view,
              settle(outcome) {
                if (settled) return;
                settled = true;
                resolve(outcome);
              },
            });
          }),
      ),
    );
  }

  private channelOf(sagaName: string): Channel {
    let channel = this.channels.get(sagaName);
    if (channel === undefined) {
      channel = { deliveries: new Subject<SagaDelivery>(), subscribers: 0 };
      this.channels.set(sagaName, channel);
    }
    return channel;
  }
}
