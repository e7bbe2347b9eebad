// RunSagaStep: what a @Saga wrapper emits for one delivery — the commands its pure saga asked
// for (or the error it threw), and the delivery to report the outcome to.
import { Command } from '@nestjs/cqrs';
import type { SagaDelivery, SagaStepOutcome } from './saga-feed';
import type { SagaCommand } from './saga-messages';

export type SagaDecision =
  | { readonly kind: 'commands'; readonly commands: readonly SagaCommand[] }
  | { readonly kind: 'failed'; readonly error: unknown };

export class RunSagaStepCommand extends Command<SagaStepOutcome> {
  constructor(
    readonly saga: string,
    readonly delivery: SagaDelivery,
    readonly decision: SagaDecision,
  ) {
    super();
  }
}
