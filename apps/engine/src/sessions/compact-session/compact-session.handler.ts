// CompactSession: one compaction attempt (reference §5, issue 4 parts 2–3), run by the attempt
// runner on the compaction's steps (compaction-steps.service.ts, decision 0012). Around it, what
// only a compaction does: the `auto_compaction_start`/`_end` hooks of an automatic attempt
// (reference §5.5, §9), and `session_compact` once a summary is recorded. Every attempt ends in
// exactly one terminal event. An attempt id that already ended returns its recorded outcome and
// writes nothing, so callers (sagas) derive it from the triggering event and redelivery never
// compacts twice; the same id with another trigger or other instructions is an idempotency
// mismatch (attempt-requests.ts). Running the same id while it runs here joins it.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { newAttemptId } from '../../attempts/attempt-ids';
import { AttemptRunner } from '../../attempts/attempt-runner.service';
import { AttemptRunningElsewhereError } from '../../attempts/attempts-elsewhere';
import { RunningAttempts } from '../../attempts/running-attempts.service';
import type { CompactRequest, CompactionResult } from './compaction-result';
import { CompactionStepsFactory, compactionRequestOf } from './compaction-steps.service';
import { SessionHooks } from '../../hooks/session-hooks.service';
import type { AutoCompactionEndEvent, AutoCompactionReason } from '../../hooks/session-hook.types';
import { SessionStreams } from '../../session-streams/session-streams.service';
import { describeError } from '../../shared/attempt-errors';
import { CompactSessionCommand } from './compact-session.command';

@CommandHandler(CompactSessionCommand)
export class CompactSessionHandler implements ICommandHandler<CompactSessionCommand> {
  constructor(
    private readonly streams: SessionStreams,
    private readonly steps: CompactionStepsFactory,
    private readonly runner: AttemptRunner,
    private readonly attempts: RunningAttempts,
    private readonly hooks: SessionHooks,
  ) {}

  /**
   * Runs the attempt, or joins it when it is running here, or returns how it ended; an attempt
   * another engine is running is waited for or left to it (`whenRunningElsewhere`).
   */
  execute(command: CompactSessionCommand): Promise<CompactionResult> {
    const request = compactRequestOf(command);
    const { sessionId, attemptId } = request;
    return this.attempts.run(
      sessionId,
      attemptId,
      'compaction',
      (signal) => this.compact(request, signal),
      compactionRequestOf(request).requestDigest,
    );
  }

  private async compact(request: CompactRequest, signal: AbortSignal): Promise<CompactionResult> {
    const { sessionId, attemptId, trigger } = request;
    const state = await this.streams.state(sessionId);
    const steps = this.steps.of(request, state);
    const resumed = await this.runner.resume(
      state,
      steps,
      (attempt) => attempt.kind === 'compaction' && attempt.started.trigger === trigger,
    );
    if (resumed.kind === 'ended') return resumed.result;
    const reason = trigger === 'manual' ? undefined : trigger;
    if (reason) await this.hooks.notify('auto_compaction_start', { sessionId, attemptId, reason });
    let result: CompactionResult;
    try {
      result = await this.runner.run(steps, resumed.alreadyStarted, signal);
    } catch (error) {
      if (reason && error instanceof AttemptRunningElsewhereError) {
        const end = { sessionId, attemptId, reason, aborted: false, willRetry: false };
        await this.hooks.notify('auto_compaction_end', { ...end, skippedReason: error.message });
      } else if (reason) {
        const errorMessage = `${autoFailure(reason)}: ${describeError(error)}`;
        const end = { sessionId, attemptId, reason, aborted: false, willRetry: false, errorMessage };
        await this.hooks.notify('auto_compaction_end', end);
      }
      throw error;
    }
    if (result.outcome === 'completed' && !result.redelivered) {
      await this.hooks.notify('session_compact', {
        sessionId,
        attemptId,
        compactionEntry: result.entry,
        fromExtension: result.fromExtension,
      });
    }
    if (reason) await this.hooks.notify('auto_compaction_end', autoCompactionEnd(result, reason));
    return result;
  }
}

/** The attempt a CompactSession command asks for (a fresh attempt id unless it names one). */
function compactRequestOf({ sessionId, options, context }: CompactSessionCommand): CompactRequest {
  return {
    sessionId,
    attemptId: options.attemptId ?? newAttemptId(),
    trigger: options.trigger ?? 'manual',
    ...(options.customInstructions !== undefined ? { customInstructions: options.customInstructions } : {}),
    ...(options.force === true ? { force: true } : {}),
    context,
    ...(options.whenRunningElsewhere !== undefined
      ? { whenRunningElsewhere: options.whenRunningElsewhere }
      : {}),
    ...(options.atLeafId !== undefined ? { atLeafId: options.atLeafId } : {}),
  };
}

/** The `auto_compaction_end` payload of an automatic attempt's result (reference §5.5, §9). */
function autoCompactionEnd(result: CompactionResult, reason: AutoCompactionReason): AutoCompactionEndEvent {
  const { sessionId, attemptId } = result;
  const failure = autoFailure(reason);
  return {
    sessionId,
    attemptId,
    reason,
    ...(result.outcome === 'completed' ? { result: result.entry } : {}),
    aborted: result.outcome === 'cancelled',
    willRetry: result.outcome === 'completed' && reason === 'overflow',
    ...(result.outcome === 'failed' ? { errorMessage: `${failure}: ${result.error.message}` } : {}),
    ...(result.outcome === 'skipped' ? { skippedReason: result.reason } : {}),
  };
}

function autoFailure(reason: AutoCompactionReason): string {
  return reason === 'overflow' ? 'Context overflow recovery failed' : 'Auto-compaction failed';
}
