// The HTTP faces of the engine as one Nest module: the sessions API, the event stream, docs,
// health, readiness and metrics, with tenancy (API keys → tenants), the admission of every write
// request and the one problem-details filter. `strataApplicationImports` wires it to the engine's
// use cases (EngineModule) and sagas (SagasModule) over one tenant-guarding store, opened from the
// configuration unless a test or embedder passes one.
import { SessionErasuresController } from '../sessions/erase-session/session-erasures.controller';
import { SessionErasures } from '../sessions/erase-session/session-erasures.service';
import { RetentionService } from '../sessions/erase-session/retention.service';
import {
  Inject,
  Module,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { openEventStore, type EventStore } from '@strata/event-store';
import {
  holdProjectionsForEngine,
  openProjectionStorage,
  type ProjectionStorage,
  type ProjectionsHold,
} from '@strata/projections';
import type { Summarizer } from '@strata/summarizer';
import { EngineAnchors } from '../anchors/engine-anchors';
import type { EngineConfig } from '../config/engine-config';
import { EngineModule } from '../sessions/engine.module';
import { EventStreamController } from './events/event-stream.controller';
import { EventStreams } from '../events-stream/event-streams.service';
import type { SessionHookHandlers } from '../hooks/session-hook.types';
import { EngineMetrics } from '../observability/engine-metrics.service';
import { storeKindOf } from '../observability/projection-lag-metrics';
import { MetricsController } from './metrics/metrics.controller';
import { SESSIONS_PER_SUMMARY_SLOT } from '../sagas/saga-runner.service';
import { SagasModule } from '../sagas/sagas.module';
import type { EngineSettingsInput } from '../settings/engine-settings.schema';
import type { Clock } from '../shared/clock';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { TenantGuard } from '../api/tenant.guard';
import { TenantGuardEventStore } from '../tenancy/tenant-guard-event-store';
import { AnchorsController } from './anchors/anchors.controller';
import { DocsController } from './docs/docs.controller';
import { ReadinessController } from './health/readiness.controller';
import { EngineDrain } from './health/engine-drain';
import { ENGINE_CONFIG, PROJECTION_STORAGE, TENANT_STORE } from '../api/http-tokens';
import { ProblemDetailsFilter } from '../api/problem/problem-details.filter';
import { ReadModels } from '../read-side/read-models.service';
import { StartSessionController } from '../sessions/start-session/start-session.controller';
import { AppendEntriesController } from '../sessions/append-entries/append-entries.controller';
import { CompactSessionController } from '../sessions/compact-session/compact-session.controller';
import { NavigateSessionController } from '../sessions/navigate-session/navigate-session.controller';
import { AbortCompactionController } from '../sessions/abort-compaction/abort-compaction.controller';
import { SetLabelController } from '../sessions/set-label/set-label.controller';
import { SessionLeaseController } from '../sessions/session-lease/session-lease.controller';
import { SessionEventsController } from '../sessions/read-sessions/session-events.controller';
import { SessionFilesController } from '../sessions/session-files/session-files.controller';
import { SessionQueriesController } from '../sessions/read-sessions/session-queries.controller';
import { SessionEntryController } from '../sessions/read-sessions/session-entry.controller';
import { TenantSessions } from '../api/tenant-sessions.service';
import { SessionCommandInputs } from '../api/sessions/session-command-input.service';
import { SessionImportWork } from '../sessions/session-files/session-import-work';
import { AppendBodyWork } from '../sessions/append-entries/append-body-work';
import { EngineThreads } from '../api/engine-threads';
import { WriteAdmissions } from '../api/admission/write-admissions.service';
import { WriteAdmissionInterceptor } from '../api/admission/write-admission.interceptor';

/** What tests and embedders may supply instead of what the configuration describes. */
export interface StrataApplicationOptions {
  /** A store to use (the caller closes it); by default the one `STRATA_STORE` names. */
  readonly store?: EventStore;
  /** Projection storage to use (the caller closes it); by default beside the store. */
  readonly projectionStorage?: ProjectionStorage;
  readonly summarizers?: readonly Summarizer[];
  readonly settings?: EngineSettingsInput;
  readonly hooks?: readonly SessionHookHandlers[];
  readonly clock?: Clock;
  /** Where the engine module reads settings files and provider keys; `process.env` by default. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** The shortest time between two anchors of one session (1,000 ms by default; tests shorten it). */
  readonly anchorIntervalMs?: number;
}

interface HttpModuleOptions {
  readonly config: EngineConfig;
  readonly store: TenantGuardEventStore;
  readonly ownsStore: boolean;
  readonly projectionStorage: ProjectionStorage;
  readonly ownsProjectionStorage: boolean;
  readonly metrics: EngineMetrics;
  readonly anchors: EngineAnchors;
}

const OWNED_RESOURCES = Symbol('OWNED_RESOURCES');

interface OwnedResources {
  readonly anchors: EngineAnchors;
  readonly store: EventStore | undefined;
  readonly projectionStorage: ProjectionStorage | undefined;
}

/**
 * Closes what this module opened, after every module has stopped using it: first the anchors
 * (the heads still held are signed while the store is open), then the projections and the store.
 */
class OwnedResourcesLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(OWNED_RESOURCES) private readonly owned: OwnedResources) {}

  /** The store's checkpoints start with the engine (the first one at once). */
  onApplicationBootstrap(): void {
    this.owned.anchors.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.owned.anchors.close();
    await this.owned.projectionStorage?.close();
    await this.owned.store?.close();
  }
}

@Module({})
export class StrataHttpModule {
  static forRoot(options: HttpModuleOptions): DynamicModule {
    return {
      module: StrataHttpModule,
      controllers: [
        StartSessionController,
        AppendEntriesController,
        CompactSessionController,
        NavigateSessionController,
        AbortCompactionController,
        SetLabelController,
        SessionLeaseController,
        SessionQueriesController,
        SessionEntryController,
        SessionFilesController,
        SessionErasuresController,
        AnchorsController,
        SessionEventsController,
        EventStreamController,
        ReadinessController,
        MetricsController,
        DocsController,
      ],
      providers: [
        { provide: ENGINE_CONFIG, useValue: options.config },
        { provide: TENANT_STORE, useValue: options.store },
        { provide: PROJECTION_STORAGE, useValue: options.projectionStorage },
        { provide: EngineMetrics, useValue: options.metrics },
        { provide: EngineAnchors, useValue: options.anchors },
        { provide: TenantDirectory, useValue: new TenantDirectory(options.config.apiKeys) },
        {
          provide: OWNED_RESOURCES,
          useValue: {
            anchors: options.anchors,
            store: options.ownsStore ? options.store : undefined,
            projectionStorage: options.ownsProjectionStorage ? options.projectionStorage : undefined,
          } satisfies OwnedResources,
        },
        OwnedResourcesLifecycle,
        EngineDrain,
        TenantGuard,
        TenantSessions,
        SessionCommandInputs,
        ReadModels,
        SessionErasures,
        RetentionService,
        EventStreams,
        WriteAdmissions,
        EngineThreads,
        SessionImportWork,
        AppendBodyWork,
        { provide: APP_INTERCEPTOR, useClass: WriteAdmissionInterceptor },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
    };
  }
}

/**
 * The projection storage the engine keeps up to date, marked as in use by an engine for as long
 * as it is open, so that `strata replay` refuses to rebuild it meanwhile (projections-in-use.ts).
 */
function openEngineProjectionStorage(config: EngineConfig): ProjectionStorage {
  const storage = openProjectionStorage(config.storeUrl, {
    cwd: config.cwd,
    sqlite: config.sqlite,
    ...(config.projectionsDatabase !== undefined ? { projectionsDatabase: config.projectionsDatabase } : {}),
  });
  if (storage.location === 'memory' || storage.location === ':memory:') return storage;
  let hold: ProjectionsHold;
  try {
    hold = holdProjectionsForEngine(storage.location);
  } catch (error) {
    void storage.close();
    throw error;
  }
  return {
    ...storage,
    close: async () => {
      try {
        await storage.close();
      } finally {
        hold.release();
      }
    },
  };
}

/** The engine module, its sagas and the HTTP module over one tenant-guarding store. */
export function strataApplicationImports(
  config: EngineConfig,
  options: StrataApplicationOptions = {},
): DynamicModule[] {
  const inner = options.store ?? openEventStore(config.storeUrl, { cwd: config.cwd, sqlite: config.sqlite });
  const metrics = new EngineMetrics({ store: storeKindOf(inner) });
  const { clock } = options;
  const anchors = new EngineAnchors(config, inner, {
    ...(options.anchorIntervalMs !== undefined ? { intervalMs: options.anchorIntervalMs } : {}),
    ...(clock !== undefined ? { clock: () => new Date(clock.now()) } : {}),
  });
  const store = new TenantGuardEventStore(inner, [
    {
      appendFinished: (result, events, seconds) => {
        metrics.appends.increment({ result });
        metrics.appendDuration.observe({ result }, seconds);
        if (result === 'ok') metrics.appendedEvents.increment({}, events);
      },
    },
    {
      appended: (streamId, events, result) => anchors.noteAppend(streamId, events, result),
      erased: (streamId) => anchors.noteErased(streamId),
    },
  ]);
  const projectionStorage = options.projectionStorage ?? openEngineProjectionStorage(config);
  return [
    EngineModule.forRoot({
      store,
      cwd: config.cwd,
      foldCache: config.foldCache,
      ...(config.engineId !== undefined ? { engineId: config.engineId } : {}),
      engineLease: config.engineLease,
      summarySlots: config.sagas,
      summaryCallObserver: metrics.summarizer,
      ...(anchors.erasureSigner !== undefined ? { erasureSigner: anchors.erasureSigner } : {}),
      environment: options.environment ?? process.env,
      ...(options.settings !== undefined ? { settings: options.settings } : {}),
      ...(options.summarizers !== undefined ? { summarizers: options.summarizers } : {}),
      ...(options.hooks !== undefined ? { hooks: options.hooks } : {}),
      ...(options.clock !== undefined ? { clock: options.clock } : {}),
    }),
    SagasModule.forRoot({
      concurrency: SESSIONS_PER_SUMMARY_SLOT * config.sagas.concurrency,
      maxPerTenant: SESSIONS_PER_SUMMARY_SLOT * config.sagas.maxPerTenant,
    }),
    StrataHttpModule.forRoot({
      config,
      store,
      ownsStore: options.store === undefined,
      projectionStorage,
      ownsProjectionStorage: options.projectionStorage === undefined,
      metrics,
      anchors,
    }),
  ];
}
