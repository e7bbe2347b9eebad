// NavigateSession: move the leaf to an entry (reference §6.4, issue 4 part 3), with a branch
// summary of the branch left behind when one is asked for and `branchSummary.enabled`, run by the
// attempt runner on the branch summary's steps (branch-summary-steps.service.ts, decision 0012).
// The `session_before_tree` hook always runs; `session_tree` follows every move. A summary asked
// for and declined (`branchSummary.enabled` off, or nothing to summarise) is recorded on the move
// with the instructions given. An attempt id that ended returns its recorded outcome; the same id
// with another target, other instructions or no summary asked for is an idempotency mismatch
// (attempt-requests.ts).
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { collectEntriesForBranchSummary, notFound, type ActiveSessionState } from '@strata/session';
import { newAttemptId } from '../../attempts/attempt-ids';
import { AttemptRunner } from '../../attempts/attempt-runner.service';
import { RunningAttempts } from '../../attempts/running-attempts.service';
import {
  BranchSummaryStepsFactory,
  endedBranchSummary,
  navigationRequestOf,
  type Navigation,
  type NavigateRequest,
} from './branch-summary-steps.service';
import type { NavigationResult } from './navigation-result';
import { navigationTarget } from './navigation-target';
import { SessionHooks } from '../../hooks/session-hooks.service';
import { SessionStreams } from '../../session-streams/session-streams.service';
import type { EngineSettings } from '../../settings/engine-settings.schema';
import { resolveStateSettings } from '../../settings/session-settings';
import { ENGINE_SETTINGS } from '../../shared/injection-tokens';
import { NavigateSessionCommand } from './navigate-session.command';

@CommandHandler(NavigateSessionCommand)
export class NavigateSessionHandler implements ICommandHandler<NavigateSessionCommand> {
  constructor(
    private readonly streams: SessionStreams,
    private readonly steps: BranchSummaryStepsFactory,
    private readonly runner: AttemptRunner,
    private readonly attempts: RunningAttempts,
    private readonly hooks: SessionHooks,
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
  ) {}

  async execute(command: NavigateSessionCommand): Promise<NavigationResult> {
    const request = navigateRequestOf(command);
    const { sessionId, targetId, attemptId } = request;
    const state = await this.streams.state(sessionId);
    const asked = navigationRequestOf(request);
    const resumed = await this.runner.resume(
      state,
      {
        request: asked,
        ended: (ended, redelivered) => endedBranchSummary(request, ended, redelivered),
      },
      (attempt) =>
        attempt.kind === 'branch_summary' && attempt.started.targetId === targetId && request.summarize,
    );
    if (resumed.kind === 'ended') return withEditorText(resumed.result, state);
    const targetEntry = state.getEntry(targetId);
    if (!targetEntry) throw notFound(`Entry ${targetId} not found`, { entryId: targetId });
    const oldLeafId = state.leafId;
    if (targetId === oldLeafId)
      return { sessionId, targetId, oldLeafId, leafId: oldLeafId, outcome: 'unchanged' };

    const settings = resolveStateSettings(this.settings, state).settings;
    const userWantsSummary = request.summarize && settings.branchSummary.enabled;
    const byId = new Map(state.entries().map((entry) => [entry.id, entry] as const));
    const collected = collectEntriesForBranchSummary(byId, oldLeafId, targetId);
    const navigation: Navigation = {
      request,
      state,
      target: navigationTarget(targetEntry),
      preparation: {
        targetId,
        oldLeafId,
        commonAncestorId: collected.commonAncestorId,
        entriesToSummarize: collected.entries,
        userWantsSummary,
      },
    };
    if (!userWantsSummary) {
      return this.steps.withoutAttempt(navigation, request.summarize ? 'disabled' : undefined);
    }
    return this.attempts.run(
      sessionId,
      attemptId,
      'branch_summary',
      async (signal) => {
        const result = await this.runner.run(
          this.steps.of(navigation, settings, signal),
          resumed.alreadyStarted,
          signal,
        );
        if (result.outcome !== 'navigated' || !result.summary || result.redelivered === true) return result;
        await this.hooks.notify('session_tree', {
          sessionId,
          newLeafId: navigation.target.newLeafId,
          oldLeafId,
          summaryEntry: result.summary.entry,
          fromExtension: result.summary.fromExtension,
        });
        const { editorText } = navigation.target;
        return { ...result, ...(editorText !== undefined ? { editorText } : {}) };
      },
      asked.requestDigest,
    );
  }
}

/** The navigation a NavigateSession command asks for (a fresh attempt id unless it names one). */
function navigateRequestOf({
  sessionId,
  targetId,
  options,
  context,
}: NavigateSessionCommand): NavigateRequest {
  return {
    sessionId,
    targetId,
    context,
    summarize: options.summarize === true,
    attemptId: options.attemptId ?? newAttemptId(),
    ...(options.customInstructions !== undefined ? { customInstructions: options.customInstructions } : {}),
  };
}

/** A navigated outcome with the text its target offers for re-editing, as its first answer offered it. */
function withEditorText(result: NavigationResult, state: ActiveSessionState): NavigationResult {
  if (result.outcome !== 'navigated') return result;
  const target = state.getEntry(result.targetId);
  const editorText = target === undefined ? undefined : navigationTarget(target).editorText;
  return { ...result, ...(editorText !== undefined ? { editorText } : {}) };
}
