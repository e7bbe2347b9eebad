// CompactSession: one compaction attempt (manual, or threshold/overflow from a saga).
import { Command } from '@nestjs/cqrs';
import type { CompactionTrigger } from '@strata/session';
import type { WhenRunningElsewhere } from '../../attempts/attempts-elsewhere';
import type { CompactionResult } from './compaction-result';
import type { CommandContext } from '../../shared/command-context';

export interface CompactSessionOptions {
  /** Appended to the summary instructions as "Additional focus: …". */
  readonly customInstructions?: string;
  /** `manual` by default. */
  readonly trigger?: CompactionTrigger;
  /**
   * Compact even when the context fits in `compaction.keepRecentTokens`, keeping less (the last
   * turn, or the end of the only turn) instead of skipping `nothing_to_summarize`.
   */
  readonly force?: boolean;
  /**
   * Names the attempt. A saga derives it from the triggering event (`attemptIdFromTrigger`), so
   * a redelivered trigger returns the recorded outcome and writes nothing; fresh by default.
   */
  readonly attemptId?: string;
  /** When another engine runs the attempt: wait for its outcome (default) or leave it (sagas). */
  readonly whenRunningElsewhere?: WhenRunningElsewhere;
  /** The leaf a saga's check point saw; the attempt ends skipped as stale when the leaf moved on. */
  readonly atLeafId?: string | null;
}

export class CompactSessionCommand extends Command<CompactionResult> {
  constructor(
    readonly sessionId: string,
    readonly options: CompactSessionOptions = {},
    /** Who the command runs for (the tenant). */
    readonly context: CommandContext = {},
  ) {
    super();
  }
}
