// The engine's read side: the context, catalog and audit projections driven by one checkpointed
// runner over the store's subscription (DESIGN.md decisions 5 and 6), started with the
// application and stopped before the store closes. Reads that must see a write just made wait
// (briefly, `STRATA_READ_WAIT_MS`) for the runner to reach the position of that write. A runner
// that fails (the store went away) is started again from its checkpoints after a pause that
// doubles (shared/restart-backoff), so the engine recovers without a restart.
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { SessionNotFoundError, type EventStore } from '@strata/event-store';
import {
  createProjectionSet,
  sessionHeadPosition,
  type ProjectionLag,
  type ProjectionSet,
  type ProjectionStorage,
} from '@strata/projections';
import { sessionStreamName, type TokenCounter } from '@strata/session';
import type { EngineConfig } from '../../config/engine-config';
import { EVENT_STORE, TOKEN_COUNTER } from '../../shared/injection-tokens';
import { RestartBackoff } from '../../shared/restart-backoff';
import { ENGINE_CONFIG, PROJECTION_STORAGE } from '../http-tokens';
import { unavailable } from '../problem/api-errors';

export type ReachOutcome = 'reached' | 'timed_out' | 'failed';

@Injectable()
export class ReadModels implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ReadModels');
  readonly projections: ProjectionSet;
  private readonly restarts = new RestartBackoff(() => this.restart());
  private stopping = false;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TOKEN_COUNTER) tokenCounter: TokenCounter,
    @Inject(PROJECTION_STORAGE) storage: ProjectionStorage,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {
    this.projections = createProjectionSet({
      store,
      storage,
      tokenCounter,
      context: config.contextCache,
      runner: {
        onError: (error) => {
          this.logger.error(`projections stopped: ${String(error)}; starting them again shortly`);
          this.restarts.schedule();
        },
        onInvalidEvent: (report) =>
          this.logger.warn(`skipped event ${report.eventId} of ${report.streamId}: ${report.detail}`),
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.projections.runner.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    this.restarts.close();
    await this.projections.runner.stop();
  }

  /** Starts the failed runner again from its checkpoints; a failure schedules the next try. */
  private async restart(): Promise<void> {
    if (this.stopping || this.projections.runner.isRunning) return;
    try {
      await this.projections.runner.stop();
      await this.projections.runner.start();
      this.logger.log('projections started again');
    } catch (error) {
      this.logger.warn(`projections could not start again: ${String(error)}`);
      this.restarts.schedule();
    }
  }

  get runner(): ProjectionSet['runner'] {
    return this.projections.runner;
  }

  lag(): Promise<ProjectionLag> {
    return this.projections.runner.lag();
  }

  /** Waits until every session event at or below `position` is applied (at most the read wait). */
  async reach(position: bigint | null): Promise<ReachOutcome> {
    const runner = this.projections.runner;
    if (runner.status().state === 'failed') return 'failed';
    if (position === null) return 'reached';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ReachOutcome>((resolve) => {
      timer = setTimeout(() => resolve('timed_out'), this.config.readWaitMs);
    });
    try {
      return await Promise.race([
        runner.waitForPosition(position).then(
          (): ReachOutcome => 'reached',
          (): ReachOutcome => 'failed',
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Like `reach`, but a read that cannot be answered fresh answers 503. */
  async requireReached(position: bigint | null): Promise<void> {
    const outcome = await this.reach(position);
    if (outcome === 'failed') throw unavailable('the read models have stopped; see the engine log', 5);
    if (outcome === 'timed_out') throw unavailable('the read models are catching up; retry shortly', 1);
  }

  /** The position of the last session event in the store. */
  storeHead(): Promise<bigint | null> {
    return sessionHeadPosition(this.store);
  }

  /** The position of the session's last event; throws `SessionNotFoundError` for an empty stream. */
  async sessionHead(sessionId: string): Promise<bigint> {
    for await (const last of this.store.readStream(sessionStreamName(sessionId), {
      direction: 'backwards',
      fromRevision: 'end',
      maxCount: 1,
    })) {
      return last.position;
    }
    throw new SessionNotFoundError(sessionId);
  }
}
