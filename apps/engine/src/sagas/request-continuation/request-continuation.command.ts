// RequestContinuation: record that the agent should go on after a completed automatic
// compaction (`ContinuationRequested`; at most one per compaction attempt).
import { Command } from '@nestjs/cqrs';
import type { RequestContinuation } from '@strata/session';
import type { CommandContext } from '../../shared/command-context';

export interface RequestContinuationOptions {
  /** Event ids derive from it: a repeated command writes nothing. */
  readonly idSeed?: string;
  /** The stored event that caused the request, recorded as the causation id. */
  readonly causationEventId?: string;
}

export interface RequestContinuationResult {
  /** False when the continuation had already been requested. */
  readonly recorded: boolean;
}

export class RequestContinuationCommand extends Command<RequestContinuationResult> {
  constructor(
    readonly sessionId: string,
    readonly request: RequestContinuation['data'],
    readonly options: RequestContinuationOptions = {},
    /** Who the command runs for (the tenant). */
    readonly context: CommandContext = {},
  ) {
    super();
  }
}
