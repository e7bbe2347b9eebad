// Navigation of the session tree with an optional branch summary (reference §6.4, issue 4
// part 3). The `session_before_tree` hook always runs; it may cancel or supply the summary.
// A summary is written only when asked for and `branchSummary.enabled`, as an attempt:
// `BranchSummaryStarted` → summariser → `RecordBranchSummary` (leaf moved to the destination,
// summary appended there). Every ending records its duration on the engine's clock and, once
// the summariser answered, its model and usage. An abort ends it `BranchSummaryCancelled` and
// the leaf stays put; a leaf that moved while the summary was made ends it skipped (`stale`),
// so a summary is never attached to the wrong branch. Without a summary the move is persisted
// as `LeafMoved` (defect 22); when a summary was asked for and declined (`branchSummary.enabled`
// off, or nothing to summarise), the move records why and the instructions given (`summaryDeclined`,
// `customInstructions`), and a summary attempt records its instructions on its start. The
// summary's `fromId` names the abandoned leaf (defect 21). An
// attempt id that ended returns its recorded outcome; the same id with another target, other
// instructions or no summary asked for is an idempotency mismatch (attempt-requests.ts).
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  sessionModelOf,
  SessionDomainError,
  collectEntriesForBranchSummary,
  notFound,
  type ActiveSessionState,
  type SessionCommand,
  type SessionState,
  type SkipBranchSummary,
} from '@strata/session';
import { attemptErrorOf, describeError, isAbort } from '../shared/attempt-errors';
import { attemptMetadata, attemptOutcomeSeed, attemptStartSeeds } from '../attempts/attempt-ids';
import { attemptDigestOf, requireSameAttempt, type AttemptRequest } from '../attempts/attempt-requests';
import { RunningAttempts } from '../attempts/running-attempts.service';
import { SessionHooks } from '../hooks/session-hooks.service';
import type { TreePreparation } from '../hooks/session-hook.types';
import { SessionStreams } from '../session-streams/session-streams.service';
import { contextWindowOf } from '../settings/engine-settings';
import type { EngineSettings } from '../settings/engine-settings.schema';
import { resolveSessionSettings } from '../settings/session-settings';
import { isoTimestamp, type Clock } from '../shared/clock';
import { writeContextOf, type CommandContext } from '../shared/command-context';
import { ENGINE_METADATA_KEY, type EngineIdentity } from '../shared/engine-identity';
import { CLOCK, ENGINE_IDENTITY, ENGINE_SETTINGS } from '../shared/injection-tokens';
import { SummaryRunner } from '../summarizers/summary-runner.service';
import { SummaryCallLog } from '../summarizers/summary-calls';
import { BranchSummaries } from './branch-summaries.service';
import { recordBranchSummaryPlan, type BranchSummaryDraft } from './branch-summary-record';
import { navigationTarget, type NavigationTarget } from './navigation-target';
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

interface Navigation {
  readonly request: NavigateRequest;
  readonly state: ActiveSessionState;
  readonly target: NavigationTarget;
  readonly preparation: TreePreparation;
}

const ABORTED = 'aborted';
const NEVER_ABORTED = new AbortController().signal;

/** How an attempt that attached no summary ends, besides its reason or error. */
type Ending = Pick<
  SkipBranchSummary['data'],
  'durationMs' | 'model' | 'usage' | 'summaryCalls' | 'summaryCallsOmitted'
>;

/** A summary attempt under way: when it started, and the summary calls it has made. */
interface AttemptRun {
  readonly startedAt: number;
  readonly calls: SummaryCallLog;
}

@Injectable()
export class NavigationService {
  private readonly logger = new Logger('NavigationService');

  constructor(
    private readonly streams: SessionStreams,
    private readonly summaries: BranchSummaries,
    private readonly runner: SummaryRunner,
    private readonly hooks: SessionHooks,
    private readonly attempts: RunningAttempts,
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENGINE_IDENTITY) private readonly identity: EngineIdentity,
  ) {}

  async navigate(request: NavigateRequest): Promise<NavigationResult> {
    const { sessionId, targetId, attemptId } = request;
    const state = await this.streams.state(sessionId);
    const existing = state.getAttempt(attemptId);
    const asked = attemptRequestOf(request);
    if (existing !== undefined) {
      const sameStart =
        existing.kind === 'branch_summary' && existing.started.targetId === targetId && request.summarize;
      await requireSameAttempt(this.streams, asked, existing, sameStart);
    }
    if (existing?.kind === 'branch_summary' && existing.outcome !== null) {
      const ended = resultOfEndedSummary({ sessionId, targetId }, existing, state, true);
      const editorText = ended?.outcome === 'navigated' ? this.editorTextOf(state, targetId) : undefined;
      if (ended) return { ...ended, ...(editorText !== undefined ? { editorText } : {}) };
    }
    const targetEntry = state.getEntry(targetId);
    if (!targetEntry) throw notFound(`Entry ${targetId} not found`, { entryId: targetId });
    const oldLeafId = state.leafId;
    if (targetId === oldLeafId)
      return { sessionId, targetId, oldLeafId, leafId: oldLeafId, outcome: 'unchanged' };

    const settings = resolveSessionSettings(this.settings, state.entries()).settings;
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
    if (!userWantsSummary) return this.withoutAttempt(navigation, request.summarize ? 'disabled' : undefined);
    return this.attempts.run(
      sessionId,
      attemptId,
      'branch_summary',
      (signal) => this.withAttempt(navigation, settings, signal),
      asked.requestDigest,
    );
  }

  /** Navigation without a summary attempt: the hook, then the leaf move. */
  private async withoutAttempt(
    navigation: Navigation,
    declined: 'disabled' | undefined,
  ): Promise<NavigationResult> {
    const before = await this.hooks.session_before_tree({
      sessionId: navigation.request.sessionId,
      preparation: navigation.preparation,
      signal: NEVER_ABORTED,
    });
    if (before?.cancel === true) return this.cancelled(navigation, TREE_HOOK_CANCELLED_REASON);
    return this.moveLeaf(navigation, declined);
  }

  private async withAttempt(
    navigation: Navigation,
    settings: EngineSettings,
    signal: AbortSignal,
  ): Promise<NavigationResult> {
    const { request, preparation, state } = navigation;
    const { sessionId, attemptId } = request;
    const before = await this.hooks.session_before_tree({ sessionId, preparation, signal });
    if (before?.cancel === true) return this.cancelled(navigation, TREE_HOOK_CANCELLED_REASON);
    const hookSummary = before?.summary;
    if (!hookSummary && preparation.entriesToSummarize.length === 0) {
      return this.moveLeaf(navigation, 'nothing_to_summarize');
    }
    const startedAt = this.clock.now();
    const run: AttemptRun = { startedAt, calls: new SummaryCallLog() };
    await this.streams.execute(
      sessionId,
      {
        type: 'StartBranchSummary',
        data: {
          attemptId,
          targetId: request.targetId,
          oldLeafId: preparation.oldLeafId,
          ...(this.runner.intendedSummarizer !== undefined ? { model: this.runner.intendedSummarizer } : {}),
          startedAt,
          ...instructionsOf(request),
        },
      },
      {
        idSeed: attemptStartSeeds(sessionId, attemptId, 'branch_summary').idSeed,
        requestDigest: attemptRequestOf(request).requestDigest,
        metadata: {
          [ENGINE_METADATA_KEY]: this.identity.id,
          ...attemptMetadata(sessionId, attemptId, 'branch_summary'),
        },
        ...writeContextOf(request.context ?? {}),
      },
    );
    try {
      const draft: BranchSummaryDraft = hookSummary
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
              signal,
              calls: run.calls,
              ...instructionsOf(request),
            })),
            fromExtension: false,
          };
      if (signal.aborted) {
        const spent = {
          ...(draft.model !== undefined ? { model: draft.model } : {}),
          ...(draft.usage !== undefined ? { usage: draft.usage } : {}),
        };
        return await this.endAttempt(
          navigation,
          cancelSummary(attemptId, ABORTED, { ...this.ending(run), ...spent }),
        );
      }
      return await this.record(navigation, draft, run);
    } catch (error) {
      if (isAbort(error, signal)) {
        return this.endAttempt(navigation, cancelSummary(attemptId, ABORTED, this.ending(run)));
      }
      this.logger.warn(`branch summary ${attemptId} of ${sessionId} failed: ${describeError(error)}`);
      return this.endAttempt(navigation, {
        type: 'FailBranchSummary',
        data: { attemptId, error: attemptErrorOf(error), ...this.ending(run) },
      });
    }
  }

  /** The duration of a running attempt on the engine's clock, and the summary calls it made. */
  private ending(run: AttemptRun): Ending {
    return { durationMs: Math.max(0, this.clock.now() - run.startedAt), ...run.calls.fields() };
  }

  /** Appends the summary at the destination while the leaf is still where navigation began. */
  private async record(
    navigation: Navigation,
    draft: BranchSummaryDraft,
    run: AttemptRun,
  ): Promise<NavigationResult> {
    const { request, target, preparation } = navigation;
    const { attemptId } = request;
    const plan = recordBranchSummaryPlan({
      attemptId,
      draft,
      oldLeafId: preparation.oldLeafId,
      newLeafId: target.newLeafId,
      timestamp: isoTimestamp(this.clock),
      durationMs: this.ending(run).durationMs,
      calls: run.calls.fields(),
    });
    const result = await this.endAttempt(navigation, plan);
    if (result.outcome === 'navigated' && result.summary && result.redelivered !== true) {
      await this.hooks.notify('session_tree', {
        sessionId: request.sessionId,
        newLeafId: target.newLeafId,
        oldLeafId: preparation.oldLeafId,
        summaryEntry: result.summary.entry,
        fromExtension: result.summary.fromExtension,
      });
      return { ...result, ...(target.editorText !== undefined ? { editorText: target.editorText } : {}) };
    }
    return result;
  }

  private async endAttempt(
    navigation: Navigation,
    plan: SessionCommand | ((state: SessionState) => SessionCommand[]),
  ): Promise<NavigationResult> {
    const { sessionId, attemptId, targetId } = navigation.request;
    let state: SessionState;
    let redelivered: boolean;
    try {
      const written = await this.streams.execute(sessionId, plan, {
        idSeed: attemptOutcomeSeed(sessionId, attemptId, 'branch_summary'),
        metadata: attemptMetadata(sessionId, attemptId, 'branch_summary'),
        ...writeContextOf(navigation.request.context ?? {}),
      });
      state = written.state;
      redelivered = written.alreadyHandled;
    } catch (error) {
      if (!(error instanceof SessionDomainError && error.code === 'already_exists')) throw error;
      state = await this.streams.state(sessionId);
      redelivered = true;
    }
    const attempt = state.status === 'active' ? state.getAttempt(attemptId) : undefined;
    const result =
      state.status === 'active' && attempt?.kind === 'branch_summary'
        ? resultOfEndedSummary({ sessionId, targetId }, attempt, state, redelivered)
        : undefined;
    if (!result) throw new Error(`branch-summary attempt ${attemptId} did not end`);
    return result;
  }

  private async moveLeaf(
    navigation: Navigation,
    declined: 'disabled' | 'nothing_to_summarize' | undefined,
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

  /** The text a navigation to `targetId` offers for re-editing, as its first answer offered it. */
  private editorTextOf(state: ActiveSessionState, targetId: string): string | undefined {
    const target = state.getEntry(targetId);
    return target === undefined ? undefined : navigationTarget(target).editorText;
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

/** What a navigation's attempt asks: the target, whether to summarise, and the instructions. */
function attemptRequestOf(request: NavigateRequest): AttemptRequest {
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

function cancelSummary(attemptId: string, reason: string, ending: Ending): SessionCommand {
  return { type: 'CancelBranchSummary', data: { attemptId, reason, ...ending } };
}
