// RecordPruning: record a tool-output pruning decision as a `ToolOutputsPruned` event (the
// outputs stay in the log; the context shows their notices).
import { Command } from '@nestjs/cqrs';
import type { RecordPruning } from '@strata/session';
import type { CommandContext } from '../../shared/command-context';

export interface RecordPruningOptions {
  /** Event ids derive from it: a repeated command writes nothing (sagas derive it from their trigger). */
  readonly idSeed?: string;
  /** The stored event that caused the pruning, recorded as the causation id. */
  readonly causationEventId?: string;
}

export interface RecordPruningResult {
  /** False when a command with the same seed had already recorded it. */
  readonly recorded: boolean;
}

export class RecordPruningCommand extends Command<RecordPruningResult> {
  constructor(
    readonly sessionId: string,
    readonly pruning: RecordPruning['data'],
    readonly options: RecordPruningOptions = {},
    /** Who the command runs for (the tenant). */
    readonly context: CommandContext = {},
  ) {
    super();
  }
}
