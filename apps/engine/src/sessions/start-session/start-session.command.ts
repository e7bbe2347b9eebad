// StartSession: opens the stream `session-<id>` with a v3 header.
import { Command } from '@nestjs/cqrs';
import type { SessionHeader } from '@strata/session';
import type { CommandContext } from '../../shared/command-context';

export interface StartSessionOptions {
  /** Chosen by the caller for an idempotent start; a UUID otherwise. */
  readonly sessionId?: string;
  readonly cwd: string;
  readonly title?: string;
  readonly parentSession?: string;
}

export interface StartSessionResult {
  readonly sessionId: string;
  readonly header: SessionHeader;
  /** The stream's last revision afterwards. */
  readonly revision: bigint | null;
  /** True when this session id was already started by the same command (nothing was written). */
  readonly alreadyStarted: boolean;
}

export class StartSessionCommand extends Command<StartSessionResult> {
  constructor(
    readonly options: StartSessionOptions,
    /** Who the command runs for (the tenant). */
    readonly context: CommandContext = {},
  ) {
    super();
  }
}
