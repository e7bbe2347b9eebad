// NavigateSession: move the leaf to an entry, optionally summarising the branch left behind.
import { Command } from '@nestjs/cqrs';
import type { NavigationResult } from './navigation-result';
import type { CommandContext } from '../../shared/command-context';

export interface NavigateSessionOptions {
  /** Summarise the abandoned branch (only when `branchSummary.enabled`). */
  readonly summarize?: boolean;
  /** Replaces the branch-summary instructions. */
  readonly customInstructions?: string;
  /** Names the branch-summary attempt (derive it from a triggering event); fresh by default. */
  readonly attemptId?: string;
}

export class NavigateSessionCommand extends Command<NavigationResult> {
  constructor(
    readonly sessionId: string,
    readonly targetId: string,
    readonly options: NavigateSessionOptions = {},
    /** Who the command runs for (the tenant). */
    readonly context: CommandContext = {},
  ) {
    super();
  }
}
