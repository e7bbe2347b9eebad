// AppendEntries: a batch of complete entries (ids, parents, timestamps chosen by the writer).
import { Command } from '@nestjs/cqrs';
import type { ActiveSessionState, SessionEntry } from '@strata/session';
import type { CommandContext } from '../../shared/command-context';

export interface AppendEntriesOptions {
  /** The stream's last revision as the writer saw it; a different one is a conflict. */
  readonly expectedRevision?: bigint;
  /** The leaf as the writer saw it (null = empty); a different one is a conflict. */
  readonly expectedLeafId?: string | null;
  /** The same key proposes the same event ids, so a retried batch is written once. */
  readonly idempotencyKey?: string;
  /** The token of the session's writer lease; required while one is in force. */
  readonly leaseToken?: string;
}

export interface AppendEntriesResult {
  readonly sessionId: string;
  readonly entryIds: readonly string[];
  /** The store ids of the `EntryAppended` events, one per entry (what the sagas derive ids from). */
  readonly eventIds: readonly string[];
  readonly leafId: string | null;
  readonly revision: bigint | null;
  /** True when the batch of this idempotency key was already written (nothing was written now). */
  readonly alreadyAppended: boolean;
  /**
   * The session as this append left it (not part of the answer): the compaction forecast is made
   * on it. Undefined when nothing was written now.
   */
  readonly sessionAfter?: ActiveSessionState;
}

export class AppendEntriesCommand extends Command<AppendEntriesResult> {
  constructor(
    readonly sessionId: string,
    readonly entries: readonly SessionEntry[],
    readonly options: AppendEntriesOptions = {},
    /** Who the command runs for (the tenant). */
    readonly context: CommandContext = {},
  ) {
    super();
  }
}
