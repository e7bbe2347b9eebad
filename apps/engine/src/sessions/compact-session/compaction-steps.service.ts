// What is a compaction's own in the one attempt workflow (decision 0012; reference §5, issue 4
// parts 2–3): a round prepares on the current path with pruned outputs as their notices, and
// skips without a model call when compaction is off for an automatic attempt (`disabled`), when
// the leaf moved on from where the automatic check point saw it (`stale`: the moment has passed,
// the session's next check point decides again; issue 13), or when there is nothing to summarise
// (defect 17). Its start records where it prepared and the tokens before; it produces through the
// hooks and the summarisers (an automatic attempt waits for a summary slot of its tenant,
// summary-slots.ts); its record is written under the leaf it prepared at. A manual attempt whose
// summary went stale prepares once more; an automatic one ends stale at once. The pure steps that
// count tokens run once their counts are ready (`whenCounted`: long texts counted in slices).
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  estimateContextTokens,
  prepareCompaction,
  withPrunedOutputs,
  type ActiveSessionState,
  type CompactionReady,
  type SessionEntry,
  type SessionState,
  type StartCompaction,
} from '@strata/session';
import type { PreparedTokenCounter } from '@strata/tokenizer';
import type { AttemptPrepared, AttemptSteps } from '../../attempts/attempt-runner.service';
import { attemptDigestOf, type AttemptRequest } from '../../attempts/attempt-requests';
import { SessionStreams } from '../../session-streams/session-streams.service';
import type { EngineSettings } from '../../settings/engine-settings.schema';
import { resolveStateSettings } from '../../settings/session-settings';
import { DEFAULT_TENANT } from '../../shared/command-context';
import { ENGINE_SETTINGS, TOKEN_COUNTER } from '../../shared/injection-tokens';
import { SummaryRunner } from '../../summarizers/summary-runner.service';
import { CompactionProducer } from './compaction-producer.service';
import { recordCompactionPlan, type CompactionDraft } from './compaction-record';
import {
  DISABLED_REASON,
  STALE_REASON,
  resultOfEndedAttempt,
  type CompactRequest,
  type CompactionResult,
} from './compaction-result';
import { SummarySlots } from './summary-slots.service';

/** How many times a manual attempt prepares before it gives up as stale (an automatic one: once). */
const MANUAL_PREPARATION_ROUNDS = 2;

/** What a round prepared: a compaction, or a skip (the domain's, or `disabled` / `stale`). */
type RoundPreparation = CompactionReady | { readonly kind: 'skip'; readonly reason: string };

/** One round of a compaction attempt: the state and path it prepared on, and what it prepared. */
export interface CompactionRound {
  readonly state: ActiveSessionState;
  /** The current path with pruned outputs as their notices. */
  readonly path: readonly SessionEntry[];
  readonly preparation: RoundPreparation;
  readonly tokensBefore: number;
}

export type CompactionSteps = AttemptSteps<CompactionRound, CompactionDraft, CompactionResult>;

@Injectable()
export class CompactionStepsFactory {
  private readonly logger = new Logger('Compaction');

  constructor(
    private readonly streams: SessionStreams,
    private readonly producer: CompactionProducer,
    private readonly summaries: SummaryRunner,
    private readonly slots: SummarySlots,
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
    @Inject(TOKEN_COUNTER) private readonly counter: PreparedTokenCounter,
  ) {}

  /** The steps of `request`'s attempt, whose first round prepares on `loaded`. */
  of(request: CompactRequest, loaded: ActiveSessionState): CompactionSteps {
    const { sessionId, attemptId, trigger } = request;
    const settings = resolveStateSettings(this.settings, loaded).settings;
    return {
      request: compactionRequestOf(request),
      ...(request.context !== undefined ? { context: request.context } : {}),
      ...(request.whenRunningElsewhere !== undefined
        ? { whenRunningElsewhere: request.whenRunningElsewhere }
        : {}),
      maxRounds: trigger === 'manual' ? MANUAL_PREPARATION_ROUNDS : 1,
      prepare: async (round) => {
        if (round > 1) this.logger.log(`compaction ${attemptId} of ${sessionId} is stale; preparing again`);
        return this.prepare(request, round === 1 ? loaded : await this.streams.state(sessionId), settings);
      },
      start: (round, startedAt) => this.start(request, round, startedAt),
      produce: (round, signal, calls) => {
        const { preparation } = round;
        if (preparation.kind !== 'ready') throw new Error(`compaction ${attemptId} produces after a skip`);
        const produce = (): ReturnType<CompactionProducer['produce']> =>
          this.producer.produce(request, preparation, round.path, settings, signal, calls);
        // An automatic attempt, recorded as started, waits for a summary slot (summary-slots.ts).
        return trigger === 'manual'
          ? produce()
          : this.slots.run(request.context?.tenant ?? DEFAULT_TENANT, produce);
      },
      record: async (round, draft, { timestamp, durationMs, calls }) => {
        const record = {
          attemptId,
          draft,
          calls: calls.fields(),
          preparedAgainst: {
            leafId: round.state.leafId,
            firstKeptEntryId: draft.firstKeptEntryId,
            previousCompactionId:
              round.preparation.kind === 'ready' ? round.preparation.previousCompactionId : undefined,
          },
          timestamp,
          durationMs,
        };
        // The plan estimates the context after the compaction when it is written; its counts are
        // made ready on the prepared state (entries appended since were counted as they came), so
        // that the write counts nothing long.
        await this.counter.whenCounted((counter) =>
          recordCompactionPlan({ ...record, counter })(round.state),
        );
        return recordCompactionPlan({ ...record, counter: this.counter });
      },
      ended: (state, redelivered) => endedCompaction(sessionId, attemptId, state, redelivered),
      decline: () => Promise.reject(new Error(`compaction ${attemptId} declined: compactions skip instead`)),
    };
  }

  private async prepare(
    request: CompactRequest,
    state: ActiveSessionState,
    settings: EngineSettings,
  ): Promise<AttemptPrepared<CompactionRound>> {
    const { trigger } = request;
    const path = withPrunedOutputs(state.currentPath(), state.prunedResults());
    const movedOn = request.atLeafId !== undefined && state.leafId !== request.atLeafId;
    const { preparation, tokensBefore } = await this.counter.whenCounted((counter) => {
      const prepared: RoundPreparation =
        trigger !== 'manual' && !settings.compaction.enabled
          ? { kind: 'skip', reason: DISABLED_REASON }
          : movedOn
            ? { kind: 'skip', reason: STALE_REASON }
            : prepareCompaction(path, settings.compaction, counter, { force: request.force === true });
      return {
        preparation: prepared,
        tokensBefore:
          prepared.kind === 'ready'
            ? prepared.tokensBefore
            : estimateContextTokens(state.entries(), state.leafId, state.prunedResults(), counter),
      };
    });
    return {
      preparation: { state, path, preparation, tokensBefore },
      verdict:
        preparation.kind === 'ready' ? { kind: 'ready' } : { kind: 'skip', reason: preparation.reason },
    };
  }

  private start(request: CompactRequest, round: CompactionRound, startedAt: number): StartCompaction {
    const { preparation } = round;
    return {
      type: 'StartCompaction',
      data: {
        attemptId: request.attemptId,
        trigger: request.trigger,
        preparedAtLeafId: round.state.leafId,
        ...(preparation.kind === 'ready' ? { firstKeptEntryId: preparation.firstKeptEntryId } : {}),
        tokensBefore: round.tokensBefore,
        ...(this.summaries.intendedSummarizer !== undefined
          ? { model: this.summaries.intendedSummarizer }
          : {}),
        startedAt,
        ...(request.force === true ? { force: true as const } : {}),
        ...(request.customInstructions !== undefined
          ? { customInstructions: request.customInstructions }
          : {}),
      },
    };
  }
}

/** The outcome of the compaction attempt in `state`; undefined when it has none there. */
export function endedCompaction(
  sessionId: string,
  attemptId: string,
  state: SessionState,
  redelivered: boolean,
): CompactionResult | undefined {
  const attempt = state.status === 'active' ? state.getAttempt(attemptId) : undefined;
  return state.status === 'active' && attempt?.kind === 'compaction'
    ? resultOfEndedAttempt(sessionId, attempt, state, redelivered)
    : undefined;
}

/** What a compaction attempt asks: its trigger, its instructions, and whether it is forced. */
export function compactionRequestOf(request: CompactRequest): AttemptRequest {
  const { sessionId, attemptId, trigger, customInstructions } = request;
  // `force` joins the digest only when set, so the digests of unforced requests stay as they were.
  const fields = {
    trigger,
    customInstructions: customInstructions ?? null,
    ...(request.force === true ? { force: true } : {}),
  };
  return { sessionId, attemptId, kind: 'compaction', requestDigest: attemptDigestOf('compaction', fields) };
}
