// What is a branch summary's own in the one attempt workflow (decision 0012; reference §6.4,
// issue 4 part 3). Its preparation is the `session_before_tree` hook, which may cancel the
// navigation or supply the summary; with neither a supplied summary nor entries to summarise it
// declines, and the navigation moves the leaf without one, recording why (`summaryDeclined`). Its
// start records the navigation and the instructions; it produces the hook's summary or the
// summariser's; its record moves the leaf to the destination and appends the summary there while
// the leaf is still where navigation began, else ends the attempt skipped as stale, so a summary is
// never attached to the wrong branch. Without a summary a move is persisted as `LeafMoved`
// (defect 22); the summary's `fromId` names the abandoned leaf (defect 21).
import { Injectable } from '@nestjs/common';
import {
  sessionModelOf,
  type ActiveSessionState,
  type SessionState,
  type StartBranchSummary,
} from '@strata/session';
import type { AttemptSteps } from '../../attempts/attempt-runner.service';
import { attemptDigestOf, type AttemptRequest } from '../../attempts/attempt-requests';
import { SessionHooks } from '../../hooks/session-hooks.service';
import type { TreePreparation } from '../../hooks/session-hook.types';
import { SessionStreams } from '../../session-streams/session-streams.service';
import { contextWindowOf } from '../../settings/engine-settings';
import type { EngineSettings } from '../../settings/engine-settings.schema';
import { writeContextOf, type CommandContext } from '../../shared/command-context';
import { SummaryRunner } from '../../summarizers/summary-runner.service';
import { BranchSummaries } from './branch-summaries.service';
import { recordBranchSummaryPlan, type BranchSummaryDraft } from './branch-summary-record';
import type { NavigationTarget } from './navigation-target';
import { TREE_HOOK_CANCELLED_REASON, resultOfEndedSummary, type NavigationResult } from './navigation-result';

export interface NavigateRequest {
  readonly sessionId: string;
  readonly targetId: string;
  readonly summarize: boolean;
  readonly customInstructions?: string;
  /** Names the branch-summary attempt; an attempt that already ended is not run again. */
  readonly attemptId: string;
  /** Who the navigation runs for: its events record the actor (the engine when absent). */
  readonly context?: CommandContext;
}

/** A navigation about to happen: the request, the state it starts from, where it lands. */
export interface Navigation {
  readonly request: NavigateRequest;
  readonly state: ActiveSessionState;
  readonly target: NavigationTarget;
  readonly preparation: TreePreparation;
}

/** What the `session_before_tree` hook left to do: its summary, when it supplied one. */
interface BranchSummaryRound {
  readonly hookSummary?: { readonly summary: string; readonly details?: BranchSummaryDraft['details'] };
}

/** Why a summary asked for was not written, as the move records it. */
export type SummaryDeclined = 'disabled' | 'nothing_to_summarize';

export type BranchSummarySteps = AttemptSteps<BranchSummaryRound, BranchSummaryDraft, NavigationResult>;

const NEVER_ABORTED = new AbortController().signal;

@Injectable()
export class BranchSummaryStepsFactory {
  constructor(
    private readonly streams: SessionStreams,
    private readonly summaries: BranchSummaries,
    private readonly runner: SummaryRunner,
    private readonly hooks: SessionHooks,
  ) {}

  /** The steps of the navigation's summary attempt; its hook and summariser run under `signal`. */
  of(navigation: Navigation, settings: EngineSettings, signal: AbortSignal): BranchSummarySteps {
    const { request, preparation, state, target } = navigation;
    const { sessionId, attemptId, targetId } = request;
    return {
      request: navigationRequestOf(request),
      ...(request.context !== undefined ? { context: request.context } : {}),
      maxRounds: 1,
      prepare: async () => {
        const before = await this.hooks.session_before_tree({ sessionId, preparation, signal });
        if (before?.cancel === true)
          return { preparation: {}, verdict: { kind: 'decline', reason: TREE_HOOK_CANCELLED_REASON } };
        const hookSummary = before?.summary;
        if (!hookSummary && preparation.entriesToSummarize.length === 0) {
          return { preparation: {}, verdict: { kind: 'decline', reason: 'nothing_to_summarize' } };
        }
        return { preparation: hookSummary ? { hookSummary } : {}, verdict: { kind: 'ready' } };
      },
      start: (_round, startedAt): StartBranchSummary => ({
        type: 'StartBranchSummary',
        data: {
          attemptId,
          targetId,
          oldLeafId: preparation.oldLeafId,
          ...(this.runner.intendedSummarizer !== undefined ? { model: this.runner.intendedSummarizer } : {}),
          startedAt,
          ...instructionsOf(request),
        },
      }),
      produce: async ({ hookSummary }, attemptSignal, calls) => ({
        kind: 'draft',
        draft: hookSummary
          ? {
              summary: hookSummary.summary,
              ...(hookSummary.details ? { details: hookSummary.details } : {}),
              fromExtension: true,
              model: 'extension',
            }
          : {
              ...(await this.summaries.summarize(preparation.entriesToSummarize, {
                contextWindow: contextWindowOf(settings, sessionModelOf(state.currentPath())),
                reserveTokens: settings.branchSummary.reserveTokens,
                signal: attemptSignal,
                calls,
                ...instructionsOf(request),
              })),
              fromExtension: false,
            },
      }),
      record: (_round, draft, { timestamp, durationMs, calls }) =>
        Promise.resolve(
          recordBranchSummaryPlan({
            attemptId,
            draft,
            oldLeafId: preparation.oldLeafId,
            newLeafId: target.newLeafId,
            timestamp,
            durationMs,
            calls: calls.fields(),
          }),
        ),
      ended: (ended, redelivered) => endedBranchSummary(request, ended, redelivered),
      decline: (_round, reason) =>
        reason === TREE_HOOK_CANCELLED_REASON
          ? Promise.resolve(this.cancelled(navigation, reason))
          : this.moveLeaf(navigation, 'nothing_to_summarize'),
    };
  }

  /** Navigation without a summary attempt: the hook, then the leaf move. */
  async withoutAttempt(navigation: Navigation, declined: 'disabled' | undefined): Promise<NavigationResult> {
    const before = await this.hooks.session_before_tree({
      sessionId: navigation.request.sessionId,
      preparation: navigation.preparation,
      signal: NEVER_ABORTED,
    });
    if (before?.cancel === true) return this.cancelled(navigation, TREE_HOOK_CANCELLED_REASON);
    return this.moveLeaf(navigation, declined);
  }

  private async moveLeaf(
    navigation: Navigation,
    declined: SummaryDeclined | undefined,
  ): Promise<NavigationResult> {
    const { request, target, preparation } = navigation;
    // A summary asked for and declined is recorded on the move, with the instructions given for it.
    const asked = declined !== undefined ? { summaryDeclined: declined, ...instructionsOf(request) } : {};
    const written = await this.streams.execute(
      request.sessionId,
      { type: 'MoveLeaf', data: { leafId: target.newLeafId, ...asked } },
      writeContextOf(request.context ?? {}),
    );
    const leafId = written.state.status === 'active' ? written.state.leafId : target.newLeafId;
    await this.hooks.notify('session_tree', {
      sessionId: request.sessionId,
      newLeafId: leafId,
      oldLeafId: preparation.oldLeafId,
    });
    return {
      sessionId: request.sessionId,
      targetId: request.targetId,
      oldLeafId: preparation.oldLeafId,
      leafId,
      outcome: 'navigated',
      ...(target.editorText !== undefined ? { editorText: target.editorText } : {}),
      ...(declined !== undefined ? { summaryDeclined: declined } : {}),
    };
  }

  private cancelled(navigation: Navigation, reason: string): NavigationResult {
    const { request, preparation } = navigation;
    return {
      sessionId: request.sessionId,
      targetId: request.targetId,
      oldLeafId: preparation.oldLeafId,
      leafId: preparation.oldLeafId,
      outcome: 'cancelled',
      reason,
    };
  }
}

/** The outcome of the navigation's summary attempt in `state`; undefined when it has none there. */
export function endedBranchSummary(
  request: Pick<NavigateRequest, 'sessionId' | 'targetId' | 'attemptId'>,
  state: SessionState,
  redelivered: boolean,
): NavigationResult | undefined {
  const attempt = state.status === 'active' ? state.getAttempt(request.attemptId) : undefined;
  return state.status === 'active' && attempt?.kind === 'branch_summary'
    ? resultOfEndedSummary(
        { sessionId: request.sessionId, targetId: request.targetId },
        attempt,
        state,
        redelivered,
      )
    : undefined;
}

/** What a navigation's attempt asks: the target, whether to summarise, and the instructions. */
export function navigationRequestOf(request: NavigateRequest): AttemptRequest {
  const { sessionId, attemptId, targetId, summarize, customInstructions } = request;
  const fields = { targetId, summarize, customInstructions: customInstructions ?? null };
  return {
    sessionId,
    attemptId,
    kind: 'branch_summary',
    requestDigest: attemptDigestOf('branch_summary', fields),
  };
}

function instructionsOf(request: NavigateRequest): { customInstructions?: string } {
  return request.customInstructions !== undefined ? { customInstructions: request.customInstructions } : {};
}
