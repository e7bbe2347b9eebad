// The saga runner (DESIGN.md decision 5, docs/decisions/0003): one catch-up subscription to the
// session streams, filtered to the events the sagas read, resumed from a stored checkpoint.
// Events an import wrote (metadata origin `import`) are history and concern no saga. For each
// event that concerns a saga it loads the session's view, delivers both to the @Saga
// wrappers through the SagaFeed, and waits until every command they asked for has run before
// it moves its position on. The checkpoint is stored after such an event (and every so often
// otherwise), so a crash redelivers at most the events since — at least once, and the ids
// derived from each event make the repeat write nothing: effectively once. A step that failed
// is delivered again after a pause, a bounded number of times, then logged and given up. When
// the subscription itself fails (the store went away), the runner starts again from its
// checkpoint after a pause that doubles (shared/restart-backoff).
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import {
  isImportedEvent,
  parseStoredSessionEvent,
  type CheckpointStore,
  type EventFilter,
  type EventStore,
  type RecordedEvent,
  type Subscription,
} from '@strata/event-store';
import { SESSION_STREAM_PREFIX, type SessionEvent } from '@strata/session';
import { describeError } from '../shared/attempt-errors';
import { RestartBackoff } from '../shared/restart-backoff';
import { EVENT_STORE } from '../shared/injection-tokens';
import { SagaFeed, type SagaStepOutcome } from './saga-feed';
import type { SagaTrigger, SessionSaga } from './saga-messages';
import { SAGA_CHECKPOINTS, SAGA_RUNNER_OPTIONS } from './saga-tokens';
import { SagaViewLoader } from './saga-view-loader.service';
import { SESSION_SAGAS } from './session-sagas';

export interface SagaRunnerOptions {
  /** The runner's key in the CheckpointStore. */
  readonly subscriberId: string;
  /** Start on application bootstrap (tests may start and stop by hand). */
  readonly autoStart: boolean;
  /** While events need no saga, the checkpoint is stored every this many events. */
  readonly checkpointInterval: number;
  /** How many times an event is delivered while a saga step fails, before it is given up. */
  readonly maxDeliveries: number;
  /** The pause before the second delivery; doubled before each later one. */
  readonly retryDelayMs: number;
}

export const DEFAULT_SAGA_SUBSCRIBER_ID = 'strata-sagas';

export const DEFAULT_SAGA_RUNNER_OPTIONS: SagaRunnerOptions = {
  subscriberId: DEFAULT_SAGA_SUBSCRIBER_ID,
  autoStart: true,
  checkpointInterval: 100,
  maxDeliveries: 3,
  retryDelayMs: 200,
};

/** Session streams, and only the event types some saga reads. */
export const SAGA_EVENT_FILTER: EventFilter = {
  streamPrefixes: [SESSION_STREAM_PREFIX],
  eventTypes: [...new Set(SESSION_SAGAS.flatMap((saga) => saga.eventTypes))],
};

export type SagaRunnerState = 'idle' | 'running' | 'stopped' | 'failed';

export interface SagaRunnerStatus {
  readonly state: SagaRunnerState;
  /** The checkpoint the current run started after (null: from the start of the log). */
  readonly startedAfter: bigint | null;
  /** Every event at or below it has been handled. */
  readonly handledPosition: bigint | null;
  readonly storedCheckpoint: bigint | null;
  /** Events received since the current run started. */
  readonly eventsSeen: number;
  /** Of those, the ones delivered to at least one saga. */
  readonly eventsDelivered: number;
  readonly commandsRun: number;
  /** Events given up after `maxDeliveries` failed deliveries. */
  readonly eventsGivenUp: number;
  readonly failure: string | null;
}

export class SagaRunnerNotRunningError extends Error {
  override readonly name = 'SagaRunnerNotRunningError';

  constructor() {
    super('the saga runner is not running');
  }
}

type Handled = 'no_saga' | 'delivered' | 'interrupted';

interface PositionWaiter {
  readonly position: bigint;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

function isAfter(position: bigint, reference: bigint | null): boolean {
  return reference === null || position > reference;
}

/** Waits `milliseconds`; false when `signal` aborted first. */
function pause(milliseconds: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, milliseconds);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

@Injectable()
export class SagaRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('SagaRunner');
  private subscription: Subscription | undefined;
  private loop: Promise<void> | undefined;
  private stopping = new AbortController();
  private state: SagaRunnerState = 'idle';
  private startedAfter: bigint | null = null;
  private handled: bigint | null = null;
  private stored: bigint | null = null;
  private sinceStored = 0;
  private eventsSeen = 0;
  private eventsDelivered = 0;
  private commandsRun = 0;
  private eventsGivenUp = 0;
  private failure: unknown;
  private waiters: PositionWaiter[] = [];
  private readonly restarts = new RestartBackoff(() => this.restart());
  private destroyed = false;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SAGA_CHECKPOINTS) private readonly checkpoints: CheckpointStore,
    @Inject(SAGA_RUNNER_OPTIONS) private readonly options: SagaRunnerOptions,
    private readonly feed: SagaFeed,
    private readonly views: SagaViewLoader,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.autoStart) await this.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.destroyed = true;
    this.restarts.close();
    await this.stop();
  }

  get isRunning(): boolean {
    return this.state === 'running';
  }

  /** Loads the checkpoint and subscribes after it; events are handled in the background. */
  async start(): Promise<void> {
    if (this.isRunning) throw new Error('the saga runner is already running');
    if (this.subscription !== undefined) await this.stop();
    const stored = await this.checkpoints.load(this.options.subscriberId);
    const from = stored === null || stored < 0n ? null : stored;
    this.state = 'running';
    this.failure = undefined;
    this.startedAfter = from;
    this.handled = from;
    this.stored = from;
    this.sinceStored = 0;
    this.eventsSeen = 0;
    this.eventsDelivered = 0;
    this.commandsRun = 0;
    this.eventsGivenUp = 0;
    this.stopping = new AbortController();
    const subscription = this.store.subscribe({ fromPosition: from ?? 'start', filter: SAGA_EVENT_FILTER });
    this.subscription = subscription;
    this.loop = this.consume(subscription, this.stopping.signal);
    this.logger.log(`saga runner started after position ${from ?? 'none (from the start)'}`);
  }

  /**
   * Stops after the event in hand (its commands run to their end; an event waiting for a retry
   * is left for the next start) and stores the checkpoint.
   */
  async stop(): Promise<void> {
    const subscription = this.subscription;
    if (subscription === undefined) return;
    this.subscription = undefined;
    this.stopping.abort(new SagaRunnerNotRunningError());
    await subscription.close();
    await this.loop;
    this.loop = undefined;
    await this.storeCheckpoint();
    if (this.state === 'running') this.state = 'stopped';
    this.rejectWaiters(new SagaRunnerNotRunningError());
  }

  /** Resolves once every saga event up to `position` has been handled. */
  waitForPosition(position: bigint): Promise<void> {
    if (!isAfter(position, this.handled)) return Promise.resolve();
    if (!this.isRunning) return Promise.reject(new SagaRunnerNotRunningError());
    return new Promise((resolve, reject) => this.waiters.push({ position, resolve, reject }));
  }

  /** Resolves once the runner has handled every saga event in the store, its own writes included. */
  async drain(): Promise<void> {
    for (;;) {
      const head = await this.headPosition();
      if (head !== null) await this.waitForPosition(head);
      if ((await this.headPosition()) === head) return;
    }
  }

  status(): SagaRunnerStatus {
    return {
      state: this.state,
      startedAfter: this.startedAfter,
      handledPosition: this.handled,
      storedCheckpoint: this.stored,
      eventsSeen: this.eventsSeen,
      eventsDelivered: this.eventsDelivered,
      commandsRun: this.commandsRun,
      eventsGivenUp: this.eventsGivenUp,
      failure: this.failure === undefined ? null : describeError(this.failure),
    };
  }

  private async consume(subscription: Subscription, signal: AbortSignal): Promise<void> {
    try {
      for await (const message of subscription) {
        if (message.kind === 'caught_up') {
          if (message.position !== null) this.advance(message.position);
          await this.storeCheckpoint();
          continue;
        }
        this.eventsSeen += 1;
        const handled = await this.handle(message.event, signal);
        if (handled === 'interrupted') return;
        this.advance(message.event.position);
        this.sinceStored += 1;
        if (handled === 'delivered' || this.sinceStored >= this.options.checkpointInterval) {
          await this.storeCheckpoint();
        }
      }
      if (!signal.aborted) this.fail(new Error('the store subscription ended'));
    } catch (error) {
      if (!signal.aborted) this.fail(error);
    }
  }

  private async handle(recorded: RecordedEvent, signal: AbortSignal): Promise<Handled> {
    const sessionId = recorded.streamId.slice(SESSION_STREAM_PREFIX.length);
    let event: SessionEvent;
    try {
      event = parseStoredSessionEvent(recorded);
    } catch (error) {
      this.logger.warn(`skipping an invalid stored event: ${describeError(error)}`);
      return 'no_saga';
    }
    // Imported history already happened elsewhere: nothing reacts to it as if it were live.
    if (isImportedEvent(recorded)) return 'no_saga';
    const sagas = SESSION_SAGAS.filter((saga) => saga.handles(event));
    if (sagas.length === 0) return 'no_saga';
    this.eventsDelivered += 1;
    const trigger: SagaTrigger = {
      sessionId,
      eventId: recorded.id,
      position: recorded.position,
      recordedAt: Date.parse(recorded.createdAt),
      event,
    };
    for (let delivery = 1; ; delivery += 1) {
      const failures = await this.deliverOnce(trigger, sagas, signal);
      if (failures === 'interrupted') return 'interrupted';
      if (failures.length === 0) return 'delivered';
      const where = `${event.type} ${recorded.id} of session ${sessionId}`;
      for (const { saga, error } of failures) {
        this.logger.warn(
          `saga ${saga} failed on ${where} (delivery ${delivery} of ${this.options.maxDeliveries}): ${describeError(error)}`,
        );
      }
      if (delivery >= this.options.maxDeliveries) {
        this.eventsGivenUp += 1;
        this.logger.error(`giving up ${where} after ${delivery} failed deliveries`);
        return 'delivered';
      }
      const delay = this.options.retryDelayMs * 2 ** (delivery - 1);
      if (!(await pause(delay, signal))) return 'interrupted';
    }
  }

  /** One delivery of the trigger to its sagas: the failures, or `interrupted` when stopping. */
  private async deliverOnce(
    trigger: SagaTrigger,
    sagas: readonly SessionSaga[],
    signal: AbortSignal,
  ): Promise<readonly { readonly saga: string; readonly error: unknown }[] | 'interrupted'> {
    if (signal.aborted) return 'interrupted';
    const names = sagas.map((saga) => saga.name);
    let view;
    try {
      view = await this.views.load(trigger);
    } catch (error) {
      return [{ saga: 'view', error }];
    }
    if (view === undefined) return [];
    try {
      await this.feed.whenAttached(names, signal);
    } catch {
      return 'interrupted';
    }
    const outcomes: SagaStepOutcome[] = await this.feed.deliver(names, trigger, view);
    for (const outcome of outcomes) this.commandsRun += outcome.commands.length;
    return outcomes.flatMap((outcome) =>
      outcome.status === 'failed' ? [{ saga: outcome.saga, error: outcome.error }] : [],
    );
  }

  private advance(position: bigint): void {
    if (!isAfter(position, this.handled)) return;
    this.handled = position;
    this.waiters = this.waiters.filter((waiter) => {
      if (isAfter(waiter.position, position)) return true;
      waiter.resolve();
      return false;
    });
  }

  private async storeCheckpoint(): Promise<void> {
    const position = this.handled;
    if (position === null || !isAfter(position, this.stored)) return;
    try {
      await this.checkpoints.store(this.options.subscriberId, position);
      this.stored = position;
      this.sinceStored = 0;
    } catch (error) {
      this.logger.warn(`could not store the saga checkpoint ${position}: ${describeError(error)}`);
    }
  }

  private async headPosition(): Promise<bigint | null> {
    for await (const event of this.store.readAll({
      direction: 'backwards',
      fromPosition: 'end',
      maxCount: 1,
      filter: SAGA_EVENT_FILTER,
    })) {
      return event.position;
    }
    return null;
  }

  private fail(error: unknown): void {
    this.failure = error;
    this.state = 'failed';
    this.logger.error(`the saga runner stopped: ${describeError(error)}; starting it again shortly`);
    this.rejectWaiters(error instanceof Error ? error : new Error(String(error)));
    this.restarts.schedule();
  }

  /** Starts the failed runner again from its checkpoint; a failure schedules the next try. */
  private async restart(): Promise<void> {
    if (this.destroyed || this.state !== 'failed') return;
    try {
      await this.stop();
      await this.start();
    } catch (error) {
      this.logger.warn(`the saga runner could not start again: ${describeError(error)}`);
      this.restarts.schedule();
    }
  }

  private rejectWaiters(error: Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(error);
  }
}
