// The engine's session use cases as one Nest module: the CQRS command handlers, the attempt runner
// and the steps of compactions and branch summaries, hooks, settings, the summarisers and the event store. Global, so
// other modules (HTTP controllers, sagas, hook providers) inject its services directly.
// `EngineModule.forRoot()` reads everything from the environment; tests and embedders pass
// a store, settings, summarisers, hooks or a clock instead.
import {
  Inject,
  Logger,
  Module,
  type DynamicModule,
  type OnModuleDestroy,
  type Provider,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { openEventStore, resolveStoreUrl, sqliteSettingsOf, type EventStore } from '@strata/event-store';
import type { Summarizer } from '@strata/summarizer';
import { createPreparedTokenCounter } from '@strata/tokenizer';
import { InterruptedAttempts, RECOVER_INTERRUPTED_ATTEMPTS } from '../attempts/interrupted-attempts.service';
import { RunningAttempts } from '../attempts/running-attempts.service';
import { EngineLease, ENGINE_LEASE_SETTINGS } from '../attempts/engine-lease.service';
import { engineLeaseSettingsOf, type EngineLeaseSettings } from '../config/engine-lease-settings';
import { BranchSummaries } from './navigate-session/branch-summaries.service';
import { BranchSummaryStepsFactory } from './navigate-session/branch-summary-steps.service';
import { CompactionProducer } from './compact-session/compaction-producer.service';
import { CompactionSummaries } from './compact-session/compaction-summaries.service';
import { CompactionStepsFactory } from './compact-session/compaction-steps.service';
import { AttemptRunner } from '../attempts/attempt-runner.service';
import {
  DEFAULT_SUMMARY_SLOTS,
  SUMMARY_SLOT_BOUNDS,
  SummarySlots,
  type SummarySlotBounds,
} from './compact-session/summary-slots.service';
import { SessionHooks } from '../hooks/session-hooks.service';
import type { SessionHookHandlers } from '../hooks/session-hook.types';
import { AbortCompactionHandler } from './abort-compaction/abort-compaction.handler';
import { AppendEntriesHandler } from './append-entries/append-entries.handler';
import { CompactSessionHandler } from './compact-session/compact-session.handler';
import { NavigateSessionHandler } from './navigate-session/navigate-session.handler';
import {
  DEFAULT_SESSION_FOLD_BOUNDS,
  SESSION_FOLD_BOUNDS,
  SessionStreams,
  type SessionFoldBounds,
} from '../session-streams/session-streams.service';
import { SetLabelHandler } from './set-label/set-label.handler';
import { ReleaseLeaseHandler, TakeLeaseHandler } from './session-lease/session-lease.handler';
import { StartSessionHandler } from './start-session/start-session.handler';
import { loadEngineSettings, parseEngineSettings } from '../settings/engine-settings';
import type { EngineSettings, EngineSettingsInput } from '../settings/engine-settings.schema';
import { systemClock, type Clock } from '../shared/clock';
import { engineIdentityOf } from '../shared/engine-identity';
import { loadEngineTemplates } from '../shared/engine-templates';
import {
  CLOCK,
  ENGINE_IDENTITY,
  ENGINE_SETTINGS,
  ENGINE_TEMPLATES,
  EVENT_STORE,
  SUMMARIZER_CANDIDATES,
  TOKEN_COUNTER,
} from '../shared/injection-tokens';
import { buildSummarizerCandidates } from '../summarizers/summarizer-candidates';
import { SummaryRunner } from '../summarizers/summary-runner.service';
import { SUMMARY_CALL_OBSERVER, type SummaryCallObserver } from '../observability/summary-call-observer';
import { ERASURE_SIGNER } from '../shared/session-erasure';
import type { ErasureSigner } from '@strata/integrity';

export interface EngineModuleOptions {
  /** A store to use (the caller closes it), or a store URL to open (closed with the module). */
  readonly store?: EventStore | string;
  /** Settings to validate; by default the file named by `STRATA_SETTINGS`, else the defaults. */
  readonly settings?: EngineSettingsInput;
  /** Summarisers to use instead of those the settings describe. */
  readonly summarizers?: readonly Summarizer[];
  /** Hook providers registered at start-up (besides any `@SessionHook()` provider). */
  readonly hooks?: readonly SessionHookHandlers[];
  readonly clock?: Clock;
  /** Where store URLs, settings files and API keys are looked up; `process.env` by default. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  readonly promptsDirectory?: string;
  /**
   * End attempts a previous run left open (CompactionFailed / BranchSummaryFailed, code
   * `interrupted`) at start-up; true by default. Turn off when several engines share the store.
   */
  readonly recoverInterruptedAttempts?: boolean;
  /** How much folded session state is kept between commands (1,000 sessions, 250,000 entries by default). */
  readonly foldCache?: Partial<SessionFoldBounds>;
  /**
   * This engine's id among several on one store (recorded on the attempts it starts; start-up
   * recovery then ends only its own). `STRATA_ENGINE_ID` of the environment by default.
   */
  readonly engineId?: string;
  /** The summary slots of automatic compactions (16 in all, 16 per tenant by default). */
  readonly summarySlots?: SummarySlotBounds;
  /**
   * The liveness lease of an engine with an id (decision 0017): how long a renewal holds and how
   * often it is renewed. `STRATA_ENGINE_LEASE_MS` and `STRATA_ENGINE_LEASE_RENEW_MS` by default.
   */
  readonly engineLease?: EngineLeaseSettings;
  /** Told of every summariser call (the HTTP engine's metrics); none by default. */
  readonly summaryCallObserver?: SummaryCallObserver;
  /** Signs every erasure into the store's log before it is carried out (decision 0018); none by default. */
  readonly erasureSigner?: ErasureSigner;
}

const STORE_OWNED = Symbol('STORE_OWNED');
const STATIC_HOOKS = Symbol('STATIC_HOOKS');

/** Closes the store when the module opened it. */
class EventStoreLifecycle implements OnModuleDestroy {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(STORE_OWNED) private readonly owned: boolean,
  ) {}

  async onModuleDestroy(): Promise<void> {
    if (this.owned) await this.store.close();
  }
}

const services = [
  SessionStreams,
  RunningAttempts,
  SessionHooks,
  SummaryRunner,
  CompactionSummaries,
  CompactionProducer,
  CompactionStepsFactory,
  AttemptRunner,
  SummarySlots,
  BranchSummaries,
  BranchSummaryStepsFactory,
  InterruptedAttempts,
  EngineLease,
];

const commandHandlers = [
  StartSessionHandler,
  AppendEntriesHandler,
  NavigateSessionHandler,
  CompactSessionHandler,
  AbortCompactionHandler,
  SetLabelHandler,
  TakeLeaseHandler,
  ReleaseLeaseHandler,
];

@Module({})
export class EngineModule {
  static forRoot(options: EngineModuleOptions = {}): DynamicModule {
    const environment = options.environment ?? process.env;
    const cwd = options.cwd ?? process.cwd();
    const logger = new Logger('EngineModule');
    const providers: Provider[] = [
      {
        provide: ENGINE_SETTINGS,
        useFactory: (): EngineSettings =>
          options.settings !== undefined
            ? parseEngineSettings(options.settings)
            : loadEngineSettings(environment, cwd),
      },
      {
        provide: EVENT_STORE,
        useFactory: (): EventStore =>
          typeof options.store === 'object'
            ? options.store
            : openEventStore(resolveStoreUrl(options.store, environment), {
                cwd,
                sqlite: sqliteSettingsOf(environment).settings,
              }),
      },
      { provide: STORE_OWNED, useValue: typeof options.store !== 'object' },
      EventStoreLifecycle,
      { provide: CLOCK, useValue: options.clock ?? systemClock },
      { provide: SUMMARY_SLOT_BOUNDS, useValue: options.summarySlots ?? DEFAULT_SUMMARY_SLOTS },
      {
        provide: ENGINE_IDENTITY,
        useValue: engineIdentityOf(options.engineId ?? environment['STRATA_ENGINE_ID']?.trim()),
      },
      {
        provide: ENGINE_LEASE_SETTINGS,
        useFactory: (): EngineLeaseSettings =>
          options.engineLease ?? engineLeaseSettingsOf(environment).settings,
      },
      { provide: RECOVER_INTERRUPTED_ATTEMPTS, useValue: options.recoverInterruptedAttempts ?? true },
      { provide: SESSION_FOLD_BOUNDS, useValue: { ...DEFAULT_SESSION_FOLD_BOUNDS, ...options.foldCache } },
      {
        provide: TOKEN_COUNTER,
        useFactory: (settings: EngineSettings) => {
          const counter = createPreparedTokenCounter(settings.tokenizer);
          // o200k loads its vocabulary on first use (about 0.2 s here): do it while starting, not
          // in the first request that counts.
          counter.countPieces(['Strata'], 0);
          return counter;
        },
        inject: [ENGINE_SETTINGS],
      },
      { provide: ENGINE_TEMPLATES, useFactory: () => loadEngineTemplates(options.promptsDirectory) },
      {
        provide: SUMMARIZER_CANDIDATES,
        useFactory: (settings: EngineSettings): readonly Summarizer[] =>
          options.summarizers ??
          buildSummarizerCandidates(settings, environment, (message) => logger.warn(message)),
        inject: [ENGINE_SETTINGS],
      },
      ...(options.summaryCallObserver !== undefined
        ? [{ provide: SUMMARY_CALL_OBSERVER, useValue: options.summaryCallObserver }]
        : []),
      ...(options.erasureSigner !== undefined
        ? [{ provide: ERASURE_SIGNER, useValue: options.erasureSigner }]
        : []),
      ...services,
      ...commandHandlers,
      {
        provide: STATIC_HOOKS,
        useFactory: (hooks: SessionHooks) =>
          (options.hooks ?? []).map((handlers) => hooks.register(handlers)),
        inject: [SessionHooks],
      },
    ];
    return {
      module: EngineModule,
      global: true,
      imports: [CqrsModule.forRoot(), DiscoveryModule],
      providers,
      exports: [
        ...services,
        ENGINE_SETTINGS,
        EVENT_STORE,
        CLOCK,
        ENGINE_IDENTITY,
        ENGINE_LEASE_SETTINGS,
        TOKEN_COUNTER,
        ENGINE_TEMPLATES,
        SUMMARIZER_CANDIDATES,
      ],
    };
  }
}
