// The session sagas as a Nest module: the runner that feeds the saga processor from the store,
// the commands only sagas issue (record a pruning, request a continuation), and what an agent
// host is told of the automatic compactions (CompactionWaits). It relies on the global
// EngineModule (store, settings, session streams, the CommandBus), starts its runner on
// application bootstrap, and is global itself, so the HTTP module can use its exports.
import { Module, type DynamicModule } from '@nestjs/common';
import type { CheckpointStore, EventStore } from '@strata/event-store';
import { EVENT_STORE } from '../shared/injection-tokens';
import { AttemptTakeover } from './attempt-takeover.service';
import { CompactionWaits } from './compaction-waits.service';
import { RecordPruningHandler } from './record-pruning/record-pruning.handler';
import { RequestContinuationHandler } from './request-continuation/request-continuation.handler';
import { defaultCheckpointStoreFor } from './saga-checkpoints';
import { DEFAULT_SAGA_RUNNER_OPTIONS, SagaRunner, type SagaRunnerOptions } from './saga-runner.service';
import { SAGA_CHECKPOINTS, SAGA_RUNNER_OPTIONS } from './saga-tokens';

export interface SagasModuleOptions extends Partial<SagaRunnerOptions> {
  /** Where the runner keeps its position; beside the events by default (see saga-checkpoints.ts). */
  readonly checkpoints?: CheckpointStore;
}

@Module({})
export class SagasModule {
  static forRoot(options: SagasModuleOptions = {}): DynamicModule {
    const { checkpoints, ...runnerOptions } = options;
    return {
      module: SagasModule,
      global: true,
      providers: [
        { provide: SAGA_RUNNER_OPTIONS, useValue: { ...DEFAULT_SAGA_RUNNER_OPTIONS, ...runnerOptions } },
        {
          provide: SAGA_CHECKPOINTS,
          useFactory: (store: EventStore): CheckpointStore => checkpoints ?? defaultCheckpointStoreFor(store),
          inject: [EVENT_STORE],
        },
        RecordPruningHandler,
        RequestContinuationHandler,
        SagaRunner,
        CompactionWaits,
        AttemptTakeover,
      ],
      exports: [SagaRunner, CompactionWaits, AttemptTakeover],
    };
  }
}
