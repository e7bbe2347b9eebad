// The session sagas as a Nest module: the runner that feeds the saga processor from the store,
// and the commands only sagas issue (record a pruning, request a continuation). It relies on
// the global EngineModule (store, settings, session streams, the CommandBus) and starts its
// runner on application bootstrap.
import { Module, type DynamicModule } from '@nestjs/common';
import type { CheckpointStore, EventStore } from '@strata/event-store';
import { EVENT_STORE } from '../shared/injection-tokens';
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
      ],
      exports: [SagaRunner],
    };
  }
}
