// Runs the session sagas (DESIGN.md decision 5, docs/decisions/0005): one runner of durable work
// (@strata/processing) with the saga processor, subscribed after its stored checkpoint to the
// session streams' saga events, started on application bootstrap and stopped on module destroy.
// Different sessions are handled side by side, up to `concurrency` at once and at most
// `maxPerTenant` for one tenant; one session's events in order. Delivery is at least once — a
// crash redelivers what was not finished — and the ids each saga derives from its trigger make
// the repeat write nothing. A failing event is delivered again after a pause that doubles, a
// bounded number of times, then given up (logged); when the store goes away the runner starts
// again from its checkpoint.
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { CheckpointStore, EventStore } from '@strata/event-store';
import {
  DEFAULT_CONCURRENCY,
  ProcessorRunner,
  type DeliveryFailure,
  type ProcessorRunnerStatus,
} from '@strata/processing';
import { SESSION_STREAM_PREFIX, sessionStreamName, type TokenCounter } from '@strata/session';
import { SessionStreams } from '../session-streams/session-streams.service';
import type { EngineSettings } from '../settings/engine-settings.schema';
import { describeError } from '../shared/attempt-errors';
import { ENGINE_IDENTITY, ENGINE_SETTINGS, EVENT_STORE, TOKEN_COUNTER } from '../shared/injection-tokens';
import type { SagaTrigger } from './saga-messages';
import { InterruptedAttempts } from '../attempts/interrupted-attempts.service';
import type { EngineIdentity } from '../shared/engine-identity';
import { SAGA_CHECKPOINT_ID, SAGA_EVENT_TYPES, decodeSagaEvent, sagaProcessor } from './saga-processor';
import { SAGA_CHECKPOINTS, SAGA_RUNNER_OPTIONS } from './saga-tokens';

/**
 * Sessions the sagas handle at once for each summary slot (compaction/summary-slots.service.ts):
 * a session whose compaction waits for a slot still holds its place here, so there must be more
 * places than slots for an answer that crosses the threshold to be recorded as started at once.
 */
export const SESSIONS_PER_SUMMARY_SLOT = 4;

export interface SagaRunnerOptions {
  /** Start on application bootstrap (tests may start and stop by hand). */
  readonly autoStart: boolean;
  /** Sessions handled at once (4 × `STRATA_SAGA_CONCURRENCY` in the engine). */
  readonly concurrency: number;
  /** Sessions of one tenant handled at once; `concurrency` by default. */
  readonly maxPerTenant?: number;
  /** While events need no saga, the checkpoint is stored every this many events. */
  readonly checkpointInterval: number;
  /** How many times an event is delivered while its handling fails, before it is given up. */
  readonly maxDeliveries: number;
  /** The pause before the second delivery; doubled before each later one. */
  readonly retryDelayMs: number;
}

export const DEFAULT_SAGA_RUNNER_OPTIONS: SagaRunnerOptions = {
  autoStart: true,
  concurrency: SESSIONS_PER_SUMMARY_SLOT * DEFAULT_CONCURRENCY,
  checkpointInterval: 100,
  maxDeliveries: 3,
  retryDelayMs: 200,
};

export interface SagaRunnerStatus {
  readonly state: ProcessorRunnerStatus['state'];
  /** The checkpoint the current run started after (null: from the start of the log). */
  readonly startedAfter: bigint | null;
  /** Every saga event at or below it has been handled (and its checkpoint stored). */
  readonly handledPosition: bigint | null;
  /** Events read since the current run started. */
  readonly eventsSeen: number;
  /** Events handed to the sagas (handled or given up) since the runner was created. */
  readonly eventsDelivered: number;
  /** Events given up after the last failed delivery. */
  readonly eventsGivenUp: number;
  /** Sessions being handled, and events queued behind them, now. */
  readonly running: number;
  readonly queued: number;
  /** Commands the sagas ran since the runner was created. */
  readonly commandsRun: number;
  readonly failure: string | null;
}

@Injectable()
export class SagaRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('SagaRunner');
  readonly runner: ProcessorRunner<SagaTrigger>;
  private commandsRun = 0;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(SAGA_CHECKPOINTS) checkpoints: CheckpointStore,
    @Inject(SAGA_RUNNER_OPTIONS) private readonly options: SagaRunnerOptions,
    @Inject(ENGINE_SETTINGS) settings: EngineSettings,
    @Inject(TOKEN_COUNTER) tokenCounter: TokenCounter,
    private readonly streams: SessionStreams,
    commandBus: CommandBus,
    @Inject(ENGINE_IDENTITY) identity: EngineIdentity,
    private readonly interrupted: InterruptedAttempts,
  ) {
    this.runner = new ProcessorRunner({
      name: 'sagas',
      store,
      checkpoints,
      processors: [
        sagaProcessor({
          // Each engine with an id of its own keeps its own position: its unfinished triggers
          // are redelivered to it, whatever the other engines on the store have done.
          checkpointId: identity.configured ? `${SAGA_CHECKPOINT_ID}/${identity.id}` : SAGA_CHECKPOINT_ID,
          streams,
          commandBus,
          settings,
          tokenCounter,
          onCommands: (count) => {
            this.commandsRun += count;
          },
        }),
      ],
      decode: decodeSagaEvent,
      streamPrefixes: [SESSION_STREAM_PREFIX],
      concurrency: options.concurrency,
      ...(options.maxPerTenant !== undefined ? { maxPerTenant: options.maxPerTenant } : {}),
      maxDeliveries: options.maxDeliveries,
      retryDelayMs: options.retryDelayMs,
      checkpointInterval: options.checkpointInterval,
      restartAfterFailure: true,
      onDeliveryFailed: (failure) => this.logger.warn(describeFailure(failure)),
      onGivenUp: (failure) =>
        this.logger.error(`giving up ${describeEvent(failure)} after ${failure.delivery} failed deliveries`),
      onError: (error) =>
        this.logger.error(`the saga runner stopped: ${describeError(error)}; starting it again shortly`),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.autoStart) await this.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.runner.dispose();
  }

  get isRunning(): boolean {
    return this.runner.isRunning;
  }

  /** Loads the checkpoint and subscribes after it; events are handled in the background. */
  async start(): Promise<void> {
    await this.runner.start();
    void this.runner.whenCaughtUp().then(
      () => this.interrupted.endUnclaimedAutomaticAttempts(),
      () => undefined,
    );
    const after = this.status().startedAfter;
    this.logger.log(`saga runner started after position ${after ?? 'none (from the start)'}`);
  }

  /** Stops reading; the sagas' commands in hand run to their end; stores the checkpoint. */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  /** Resolves once every saga event up to `position` has been handled. */
  waitForPosition(position: bigint): Promise<void> {
    return this.runner.waitForPosition(position);
  }

  /**
   * Resolves once the sagas have handled every event of the session stored so far — and so run
   * to their end the compactions those events asked for — whatever other sessions hold the
   * checkpoint back. At once when the runner is not running (nothing more will start until it
   * does). The runner reads only the event types some saga reads, so the wait is for the
   * session's last event of those types.
   */
  async waitForSession(sessionId: string): Promise<void> {
    if (!this.runner.isRunning) return;
    const position = await this.streams.lastPositionOf(sessionId, SAGA_EVENT_TYPES);
    if (position === null) return;
    try {
      await this.runner.waitForScope({ partition: sessionStreamName(sessionId) }, position);
    } catch {
      // The runner stopped or failed while waiting: it reacts to nothing more until it starts.
    }
  }

  /** Resolves once the sagas have handled every saga event in the store, their own writes included. */
  drain(): Promise<void> {
    return this.runner.drain();
  }

  status(): SagaRunnerStatus {
    const status = this.runner.status();
    const [sagas] = status.processors;
    return {
      state: status.state,
      startedAfter: sagas?.startedAfter ?? null,
      handledPosition: sagas?.checkpoint ?? null,
      eventsSeen: status.eventsRead,
      eventsDelivered: (sagas?.eventsHandled ?? 0) + (sagas?.eventsGivenUp ?? 0),
      eventsGivenUp: sagas?.eventsGivenUp ?? 0,
      running: sagas?.running ?? 0,
      queued: sagas?.queued ?? 0,
      commandsRun: this.commandsRun,
      failure: status.failure,
    };
  }
}

function describeEvent(failure: DeliveryFailure): string {
  const sessionId = failure.partition.slice(SESSION_STREAM_PREFIX.length);
  return `${failure.eventType} ${failure.eventId} of session ${sessionId}`;
}

function describeFailure(failure: DeliveryFailure): string {
  return (
    `the sagas failed on ${describeEvent(failure)} (delivery ${failure.delivery} of ${failure.maxDeliveries}): ` +
    describeError(failure.error)
  );
}
