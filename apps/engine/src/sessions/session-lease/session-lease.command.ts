// The writer lease of a session: take or renew it (TakeLease), release it (ReleaseLease).
import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '../../shared/command-context';

export interface LeaseResult {
  readonly sessionId: string;
  readonly token: string;
  readonly sequence: number;
  readonly holder: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
  readonly revision: bigint | null;
}

export interface TakeLeaseRequest {
  /** Who takes the lease; required unless `token` renews one. */
  readonly holder?: string;
  readonly ttlMs: number;
  /** The token of the lease in force, to renew it. */
  readonly token?: string;
}

export class TakeLeaseCommand extends Command<LeaseResult> {
  constructor(
    readonly sessionId: string,
    readonly request: TakeLeaseRequest,
    readonly context: CommandContext = {},
  ) {
    super();
  }
}

export class ReleaseLeaseCommand extends Command<void> {
  constructor(
    readonly sessionId: string,
    readonly token: string,
    readonly context: CommandContext = {},
  ) {
    super();
  }
}
