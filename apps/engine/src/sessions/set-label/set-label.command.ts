// SetLabel: labels an entry (an empty or missing label clears it), as a `label` entry at the leaf.
import { Command } from '@nestjs/cqrs';
import type { LabelEntry } from '@strata/session';
import type { CommandContext } from '../../shared/command-context';

export interface SetLabelResult {
  readonly sessionId: string;
  readonly entry: LabelEntry;
  readonly revision: bigint | null;
  /** True when the label of this idempotency key was already written. */
  readonly alreadySet: boolean;
}

export class SetLabelCommand extends Command<SetLabelResult> {
  constructor(
    readonly sessionId: string,
    readonly targetId: string,
    readonly label: string | undefined,
    readonly options: { readonly idempotencyKey?: string; readonly leaseToken?: string } = {},
    /** Who the command runs for (the tenant). */
    readonly context: CommandContext = {},
  ) {
    super();
  }
}
