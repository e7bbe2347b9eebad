// The thin @Saga wrappers (STYLE.md habit 9): each pure saga of session-sagas.ts as a Nest saga.
// They read the runner's deliveries, not the in-process EventBus (durable work runs from the
// store subscription, DESIGN.md decision 5), and map each delivery to one RunSagaStep command.
// The pipe is total: a saga that throws becomes a failed step, so the stream never errors and
// the saga stays subscribed.
import { Injectable } from '@nestjs/common';
import { Saga, type ICommand } from '@nestjs/cqrs';
import { map, type Observable } from 'rxjs';
import { continuationSaga } from './continuation.saga';
import { overflowRecoverySaga } from './overflow-recovery.saga';
import { SagaFeed, type SagaDelivery } from './saga-feed';
import type { SessionSaga } from './saga-messages';
import { RunSagaStepCommand, type SagaDecision } from './run-saga-step.command';
import { thresholdCompactionSaga } from './threshold-compaction.saga';

function decide(saga: SessionSaga, delivery: SagaDelivery): SagaDecision {
  try {
    return { kind: 'commands', commands: saga.react(delivery.trigger, delivery.view) };
  } catch (error) {
    return { kind: 'failed', error };
  }
}

@Injectable()
export class SessionSagas {
  constructor(private readonly feed: SagaFeed) {}

  @Saga()
  thresholdCompaction = (): Observable<ICommand> => this.stepsOf(thresholdCompactionSaga);

  @Saga()
  overflowRecovery = (): Observable<ICommand> => this.stepsOf(overflowRecoverySaga);

  @Saga()
  continuation = (): Observable<ICommand> => this.stepsOf(continuationSaga);

  private stepsOf(saga: SessionSaga): Observable<ICommand> {
    return this.feed
      .deliveriesFor(saga.name)
      .pipe(map((delivery) => new RunSagaStepCommand(saga.name, delivery, decide(saga, delivery))));
  }
}
