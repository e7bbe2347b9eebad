// AbortCompaction: trips the abort signal of the session's running summarisation attempts.
import { Command } from '@nestjs/cqrs';
import type { AttemptKind } from '../../attempts/running-attempts.service';
import type { CommandContext } from '../../shared/command-context';

export interface AbortCompactionOptions {
  /** Only this attempt. */
  readonly attemptId?: string;
  /** Only attempts of this kind; compactions and branch summaries alike by default. */
  readonly kind?: AttemptKind;
}

export interface AbortCompactionResult {
  /** The attempts that were running here and are now aborting (each ends `…Cancelled`). */
  readonly abortedAttemptIds: readonly string[];
}

export class AbortCompactionCommand extends Command<AbortCompactionResult> {
  constructor(
    readonly sessionId: string,
    readonly options: AbortCompactionOptions = {},
    /** Who the command runs for (the tenant). */
    readonly context: CommandContext = {},
  ) {
    super();
  }
}
