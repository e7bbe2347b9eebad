// The engine's read side: the context, catalog and audit projections and the store-activity
// metrics, processors of one read-model runner over the store's subscription (DESIGN.md
// decisions 5 and 6), started with the application and stopped before the store closes. A
// read that must see a write just made waits (briefly, `STRATA_READ_WAIT_MS`) for that
// session's events only, never for other sessions' work. A session a read model has set aside
// answers its own problem (`set_aside`) on every read that needs it, with a log line and a
// metric; the others go on. A runner that fails (the store went away) starts again from its
// checkpoints after a pause that doubles, so the engine recovers without a restart.
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { EventStore } from '@strata/event-store';
import type { ParkedPartition, RunnerLag } from '@strata/processing';
import {
  SessionSetAsideError,
  createProjectionSet,
  sessionHeadPosition,
  sessionIdOfStream,
  type ProjectionName,
  type ProjectionSet,
  type ProjectionStorage,
} from '@strata/projections';
import { sessionStreamName, type TokenCounter } from '@strata/session';
import type { EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../observability/engine-metrics.service';
import { SessionStreams } from '../session-streams/session-streams.service';
import { storeActivityMetrics } from './store-activity-metrics';
import { erasedSessionCaches } from './erased-session-caches';
import { TenantGuardEventStore } from '../tenancy/tenant-guard-event-store';
import { describeError } from '../shared/attempt-errors';
import { EVENT_STORE, TOKEN_COUNTER } from '../shared/injection-tokens';
import { ENGINE_CONFIG, PROJECTION_STORAGE } from '../api/http-tokens';
import { unavailable } from '../api/problem/api-errors';

export type ReachOutcome = 'reached' | 'timed_out' | 'failed';

@Injectable()
export class ReadModels implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ReadModels');
  readonly projections: ProjectionSet;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TOKEN_COUNTER) tokenCounter: TokenCounter,
    @Inject(PROJECTION_STORAGE) storage: ProjectionStorage,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly metrics: EngineMetrics,
    private readonly streams: SessionStreams,
  ) {
    this.projections = createProjectionSet({
      store,
      storage,
      tokenCounter,
      context: {
        ...config.contextCache,
        onSnapshotIgnored: ({ sessionId, reason }) =>
          this.logger.warn(
            `a context snapshot of session ${sessionId} was not used (${reason}); reading its events`,
          ),
      },
      processors: [
        storeActivityMetrics(store, metrics),
        erasedSessionCaches(streams, store instanceof TenantGuardEventStore ? store.tenants : undefined),
      ],
      runner: {
        restartAfterFailure: true,
        onError: (error) =>
          this.logger.error(`the read models stopped: ${describeError(error)}; starting them again shortly`),
        onParked: (record) => this.reportSetAside(record),
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.projections.runner.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.projections.runner.dispose();
    await this.projections.context.close();
  }

  get runner(): ProjectionSet['runner'] {
    return this.projections.runner;
  }

  lag(): Promise<RunnerLag> {
    return this.projections.runner.lag();
  }

  /** Waits until every session event at or below `position` is applied (at most the read wait). */
  reach(position: bigint | null): Promise<ReachOutcome> {
    return this.reachWith(position, (at) => this.runner.waitForPosition(at));
  }

  /** Like `reach`, but a read that cannot be answered fresh answers 503. */
  async requireReached(position: bigint | null): Promise<void> {
    this.requireOutcome(await this.reach(position));
  }

  /**
   * Waits until the named read models hold the session's last event (its own events only),
   * and refuses a session one of them has set aside; throws `SessionNotFoundError` for an
   * empty stream.
   */
  async requireSession(sessionId: string, projections: readonly ProjectionName[]): Promise<void> {
    this.requireNotSetAside(sessionId, projections);
    const head = await this.sessionHead(sessionId);
    const scope = { partition: sessionStreamName(sessionId) };
    this.requireOutcome(await this.reachWith(head, (at) => this.runner.waitForScope(scope, at, projections)));
    this.requireNotSetAside(sessionId, projections);
  }

  /** Throws `SessionSetAsideError` when one of the named read models has set the session aside. */
  requireNotSetAside(sessionId: string, projections: readonly ProjectionName[]): void {
    for (const projection of projections) {
      const parked = this.runner.isParked(sessionStreamName(sessionId), projection);
      if (parked !== undefined) throw SessionSetAsideError.fromParked(sessionId, parked);
    }
  }

  /** How many sessions a read model has set aside. */
  setAsideSessions(): number {
    return new Set(this.runner.parked().map((record) => record.partition)).size;
  }

  /** The position of the last session event in the store. */
  storeHead(): Promise<bigint | null> {
    return sessionHeadPosition(this.store);
  }

  /** The position of the session's last event; throws `SessionNotFoundError` for an empty stream. */
  sessionHead(sessionId: string): Promise<bigint> {
    return this.streams.headPosition(sessionId);
  }

  private async reachWith(
    position: bigint | null,
    wait: (position: bigint) => Promise<void>,
  ): Promise<ReachOutcome> {
    if (this.runner.status().state === 'failed') return 'failed';
    if (position === null) return 'reached';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ReachOutcome>((resolve) => {
      timer = setTimeout(() => resolve('timed_out'), this.config.readWaitMs);
    });
    try {
      return await Promise.race([
        wait(position).then(
          (): ReachOutcome => 'reached',
          (): ReachOutcome => 'failed',
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private requireOutcome(outcome: ReachOutcome): void {
    if (outcome === 'failed') throw unavailable('the read models have stopped; see the engine log', 5);
    if (outcome === 'timed_out') throw unavailable('the read models are catching up; retry shortly', 1);
  }

  private reportSetAside(record: ParkedPartition): void {
    const sessionId = sessionIdOfStream(record.partition) ?? record.partition;
    this.metrics.sessionsSetAside.increment({ projection: record.processor });
    this.logger.error(
      `session ${sessionId} of tenant ${record.tenant} is set aside by the ${record.processor} read model: ` +
        `event ${record.eventId} (${record.eventType}) at position ${record.position}: ${record.reason}; ` +
        'its reads answer set_aside until `strata replay` (after a fix) brings it back',
    );
  }
}
