// Runs one compaction attempt end to end (reference §5, issue 4 parts 2–3): load → prepare
// (pruned outputs as their notices) → a skip ends at once as `CompactionStarted` +
// `CompactionSkipped` with no model call (defect 17) → otherwise `CompactionStarted` → hooks →
// summaries under the attempt's abort signal → record under the leaf it was prepared at. When the
// leaf moved on meanwhile (issue 13) the summary is stale: a manual attempt prepares once more,
// an automatic one ends `CompactionSkipped {reason: 'stale'}` at once — the moment its check
// point saw has passed, and the session's next check point decides again; an automatic attempt
// that finds the leaf already moved from where its check point saw it ends so without a summary.
// Every attempt ends in exactly one terminal event, with
// the duration on the engine's clock and what the summarisers spent (all rounds added up). An
// attempt id that already ended returns its recorded outcome and writes nothing, so callers
// (sagas) derive it from the triggering event and redelivery never compacts twice; the same id
// with another trigger or other instructions is an idempotency mismatch (attempt-requests.ts). The
// pure steps that count tokens run once their counts are ready (`whenCounted`: long texts counted
// in slices).
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  estimateContextTokens,
  withPrunedOutputs,
  SessionDomainError,
  prepareCompaction,
  type ActiveSessionState,
  type SessionCommand,
  type SessionState,
  type SkipCompaction,
  type Usage,
} from '@strata/session';
import type { PreparedTokenCounter } from '@strata/tokenizer';
import { attemptMetadata, attemptOutcomeSeed, attemptStartSeeds } from '../attempts/attempt-ids';
import { attemptDigestOf, requireSameAttempt, type AttemptRequest } from '../attempts/attempt-requests';
import { AttemptRunningElsewhereError, outcomeFromElsewhere } from '../attempts/attempts-elsewhere';
import { RunningAttempts } from '../attempts/running-attempts.service';
import { SessionHooks } from '../hooks/session-hooks.service';
import type { AutoCompactionEndEvent, AutoCompactionReason } from '../hooks/session-hook.types';
import { SessionStreams, type SessionWriteOptions } from '../session-streams/session-streams.service';
import type { EngineSettings } from '../settings/engine-settings.schema';
import { resolveSessionSettings } from '../settings/session-settings';
import { attemptErrorOf, describeError, isAbort } from '../shared/attempt-errors';
import { isoTimestamp, type Clock } from '../shared/clock';
import {
  ENGINE_METADATA_KEY,
  engineOfMetadata,
  isOwnEarlierAttempt,
  type EngineIdentity,
} from '../shared/engine-identity';
import { CLOCK, ENGINE_IDENTITY, ENGINE_SETTINGS, TOKEN_COUNTER } from '../shared/injection-tokens';
import { addUsage } from '../summarizers/summary-request-adapter';
import { SummaryRunner } from '../summarizers/summary-runner.service';
import { SummaryCallLog } from '../summarizers/summary-calls';
import { CompactionProducer } from './compaction-producer.service';
import { recordCompactionPlan, type CompactionDraft } from './compaction-record';
import { SummarySlots } from './summary-slots.service';
import { DEFAULT_TENANT, writeContextOf } from '../shared/command-context';
import {
  ABORTED_REASON,
  DISABLED_REASON,
  STALE_REASON,
  resultOfEndedAttempt,
  type CompactRequest,
  type CompactionResult,
} from './compaction-result';

export type { CompactRequest };

/** How many times a manual attempt prepares before it gives up as stale (an automatic one: once). */
const MANUAL_PREPARATION_ROUNDS = 2;

/**
 * What an attempt's summarisers spent so far: the latest model (as its provider reported it), the
 * usage of every round added up; each call's own model and usage are in the attempt's call log.
 */
interface Spent {
  readonly model?: string;
  readonly usage?: Usage;
}

/** How an attempt that did not compact ends, besides its reason or error. */
type Ending = Pick<
  SkipCompaction['data'],
  'durationMs' | 'model' | 'usage' | 'summaryCalls' | 'summaryCallsOmitted'
>;

@Injectable()
export class CompactionService {
  private readonly logger = new Logger('CompactionService');

  constructor(
    private readonly streams: SessionStreams,
    private readonly producer: CompactionProducer,
    private readonly runner: SummaryRunner,
    private readonly hooks: SessionHooks,
    private readonly attempts: RunningAttempts,
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
    @Inject(TOKEN_COUNTER) private readonly counter: PreparedTokenCounter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENGINE_IDENTITY) private readonly identity: EngineIdentity,
    private readonly slots: SummarySlots,
  ) {}

  /**
   * Runs the attempt, or joins it when it is running here, or returns how it ended; an attempt
   * another engine is running is waited for or left to it (`whenRunningElsewhere`).
   */
  compact(request: CompactRequest): Promise<CompactionResult> {
    const { sessionId, attemptId } = request;
    const asked = attemptRequestOf(request);
    return this.attempts.run(
      sessionId,
      attemptId,
      'compaction',
      (signal) => this.runAttempt(request, asked, signal),
      asked.requestDigest,
    );
  }

  private async runAttempt(
    request: CompactRequest,
    asked: AttemptRequest,
    signal: AbortSignal,
  ): Promise<CompactionResult> {
    const { sessionId, attemptId, trigger } = request;
    const state = await this.streams.state(sessionId);
    const existing = state.getAttempt(attemptId);
    if (existing !== undefined) {
      const sameTrigger = existing.kind === 'compaction' && existing.started.trigger === trigger;
      await requireSameAttempt(this.streams, asked, existing, sameTrigger);
    }
    if (existing?.kind === 'compaction' && existing.outcome !== null) {
      const ended = resultOfEndedAttempt(sessionId, existing, state, true);
      if (ended) return ended;
    }
    // Started in the stream but not running in this process: another engine runs it, or this
    // engine did before it stopped (the redelivered trigger then takes it up again).
    if (existing?.kind === 'compaction') {
      const engine = await this.startEngineOf(request);
      if (!isOwnEarlierAttempt(this.identity, engine)) return this.fromElsewhere(request);
    }
    const reason = trigger === 'manual' ? undefined : trigger;
    if (reason) await this.hooks.notify('auto_compaction_start', { sessionId, attemptId, reason });
    let result: CompactionResult;
    try {
      result = await this.attempt(request, state, existing !== undefined, signal);
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

  private async attempt(
    request: CompactRequest,
    loaded: ActiveSessionState,
    alreadyStarted: boolean,
    signal: AbortSignal,
  ): Promise<CompactionResult> {
    const { sessionId, attemptId, trigger } = request;
    const startedAt = this.clock.now();
    const settings = resolveSessionSettings(this.settings, loaded.entries()).settings;
    let state = loaded;
    let started = alreadyStarted;
    let spent: Spent = {};
    const calls = new SummaryCallLog();
    const ending = (): Ending => ({
      durationMs: Math.max(0, this.clock.now() - startedAt),
      ...spent,
      ...calls.fields(),
    });
    try {
      for (let round = 1; ; round += 1) {
        const path = withPrunedOutputs(state.currentPath(), state.prunedResults());
        const current = state;
        const movedOn = request.atLeafId !== undefined && state.leafId !== request.atLeafId;
        const { preparation, tokensBefore } = await this.counter.whenCounted((counter) => {
          const prepared =
            trigger !== 'manual' && !settings.compaction.enabled
              ? ({ kind: 'skip', reason: DISABLED_REASON } as const)
              : movedOn
                ? ({ kind: 'skip', reason: STALE_REASON } as const)
                : prepareCompaction(path, settings.compaction, counter, { force: request.force === true });
          return {
            preparation: prepared,
            tokensBefore:
              prepared.kind === 'ready'
                ? prepared.tokensBefore
                : estimateContextTokens(current.entries(), current.leafId, current.prunedResults(), counter),
          };
        });
        const start: SessionCommand[] = started
          ? []
          : [
              {
                type: 'StartCompaction',
                data: {
                  attemptId,
                  trigger,
                  preparedAtLeafId: state.leafId,
                  ...(preparation.kind === 'ready' ? { firstKeptEntryId: preparation.firstKeptEntryId } : {}),
                  tokensBefore,
                  ...(this.runner.intendedSummarizer !== undefined
                    ? { model: this.runner.intendedSummarizer }
                    : {}),
                  startedAt,
                  ...(request.force === true ? { force: true as const } : {}),
                  ...(request.customInstructions !== undefined
                    ? { customInstructions: request.customInstructions }
                    : {}),
                },
              },
            ];
        if (preparation.kind === 'skip') {
          return await this.end(request, [...start, skip(attemptId, preparation.reason, ending())], started);
        }
        if (!started) {
          const written = await this.streams.execute(sessionId, start, this.startWrite(request));
          // Another engine wrote the same start first (both reacted to one event): it summarises.
          if (written.alreadyHandled || !(await this.startedHere(sessionId, written.revision))) {
            return await this.fromElsewhere(request);
          }
          started = true;
        }
        const produce = (): ReturnType<CompactionProducer['produce']> =>
          this.producer.produce(request, preparation, path, settings, signal, calls);
        // An automatic attempt, recorded as started, waits for a summary slot (summary-slots.ts).
        const produced =
          trigger === 'manual'
            ? await produce()
            : await this.slots.run(request.context?.tenant ?? DEFAULT_TENANT, produce);
        if (produced.kind === 'cancelled') {
          return await this.end(request, [cancel(attemptId, produced.reason, ending())], true);
        }
        spent = spentWith(spent, produced.draft);
        if (signal.aborted) {
          return await this.end(request, [cancel(attemptId, ABORTED_REASON, ending())], true);
        }
        const record = {
          attemptId,
          draft: { ...produced.draft, ...(spent.usage !== undefined ? { usage: spent.usage } : {}) },
          calls: calls.fields(),
          preparedAgainst: {
            leafId: current.leafId,
            firstKeptEntryId: produced.draft.firstKeptEntryId,
            previousCompactionId: preparation.previousCompactionId,
          },
          timestamp: isoTimestamp(this.clock),
          durationMs: Math.max(0, this.clock.now() - startedAt),
        };
        // The plan estimates the context after the compaction when it is written; its counts are
        // made ready on the prepared state (entries appended since were counted as they came), so
        // that the write counts nothing long.
        await this.counter.whenCounted((counter) => recordCompactionPlan({ ...record, counter })(current));
        const written = await this.streams.execute(
          sessionId,
          recordCompactionPlan({ ...record, counter: this.counter }),
          this.outcomeWrite(request),
        );
        if (written.events.length > 0 || written.alreadyHandled) {
          return this.endedResult(request, written.state, written.alreadyHandled);
        }
        if (trigger !== 'manual' || round >= MANUAL_PREPARATION_ROUNDS) {
          return await this.end(request, [skip(attemptId, STALE_REASON, ending())], true);
        }
        this.logger.log(`compaction ${attemptId} of ${sessionId} is stale; preparing again`);
        state = await this.streams.state(sessionId);
      }
    } catch (error) {
      if (!started) throw error;
      return this.endAfterError(request, error, signal, ending());
    }
  }

  /** Writes a terminal decision; an attempt that another writer ended meanwhile reads back as such. */
  private async end(
    request: CompactRequest,
    commands: readonly SessionCommand[],
    started: boolean,
  ): Promise<CompactionResult> {
    const { sessionId } = request;
    try {
      const written = await this.streams.execute(
        sessionId,
        commands,
        started ? this.outcomeWrite(request) : this.startWrite(request),
      );
      return this.endedResult(request, written.state, written.alreadyHandled);
    } catch (error) {
      if (error instanceof SessionDomainError && error.code === 'already_exists') {
        return this.endedResult(request, await this.streams.state(sessionId), true);
      }
      throw error;
    }
  }

  private async endAfterError(
    request: CompactRequest,
    error: unknown,
    signal: AbortSignal,
    ending: Ending,
  ): Promise<CompactionResult> {
    const { attemptId } = request;
    if (isAbort(error, signal)) {
      return this.end(request, [cancel(attemptId, ABORTED_REASON, ending)], true);
    }
    if (error instanceof SessionDomainError && error.code === 'already_exists') {
      return this.endedResult(request, await this.streams.state(request.sessionId), true);
    }
    this.logger.warn(`compaction ${attemptId} of ${request.sessionId} failed: ${describeError(error)}`);
    return this.end(
      request,
      [{ type: 'FailCompaction', data: { attemptId, error: attemptErrorOf(error), ...ending } }],
      true,
    );
  }

  /**
   * Whether the start stored at `revision` is this engine's: two engines that append the same
   * start (same derived id, same request) at the same revision both get the store's answer to
   * an idempotent retry, so only the engine recorded on it may summarise.
   */
  private async startedHere(sessionId: string, revision: bigint | null): Promise<boolean> {
    if (revision === null) return false;
    const metadata = await this.streams.metadataAt(sessionId, revision);
    return metadata !== undefined && engineOfMetadata(metadata) === this.identity.id;
  }

  /** The engine recorded on the attempt's start event; undefined when it records none. */
  private async startEngineOf(request: CompactRequest): Promise<string | undefined> {
    const seeds = attemptStartSeeds(request.sessionId, request.attemptId, 'compaction');
    const earlier = await this.streams.earlierWrite(request.sessionId, seeds);
    if (earlier === undefined) return undefined;
    const metadata = await this.streams.metadataAt(request.sessionId, earlier.revision);
    return metadata === undefined ? undefined : engineOfMetadata(metadata);
  }

  /** The outcome of an attempt another engine runs, once it ends; or leave it to that engine. */
  private async fromElsewhere(request: CompactRequest): Promise<CompactionResult> {
    const { sessionId, attemptId } = request;
    if (request.whenRunningElsewhere === 'leave') {
      throw new AttemptRunningElsewhereError(sessionId, attemptId, undefined);
    }
    const { state } = await outcomeFromElsewhere(
      () => this.streams.state(sessionId),
      sessionId,
      attemptId,
      undefined,
    );
    return this.endedResult(request, state, true);
  }

  /**
   * How the attempt's first event is written: seeded by session and attempt, with the request's
   * digest, this engine's id and the attempt's correlation id (attempt-ids.ts), for the request's
   * context (its tenant and actor).
   */
  private startWrite(request: CompactRequest): SessionWriteOptions {
    const { idSeed } = attemptStartSeeds(request.sessionId, request.attemptId, 'compaction');
    return {
      idSeed,
      requestDigest: attemptRequestOf(request).requestDigest,
      metadata: {
        [ENGINE_METADATA_KEY]: this.identity.id,
        ...attemptMetadata(request.sessionId, request.attemptId, 'compaction'),
      },
      ...writeContextOf(request.context ?? {}),
    };
  }

  /**
   * How the attempt's outcome is written: seeded by session and attempt, with the attempt's
   * correlation id, for the request's context.
   */
  private outcomeWrite(request: CompactRequest): SessionWriteOptions {
    return {
      idSeed: attemptOutcomeSeed(request.sessionId, request.attemptId, 'compaction'),
      metadata: attemptMetadata(request.sessionId, request.attemptId, 'compaction'),
      ...writeContextOf(request.context ?? {}),
    };
  }

  private endedResult(request: CompactRequest, state: SessionState, redelivered = false): CompactionResult {
    const attempt = state.status === 'active' ? state.getAttempt(request.attemptId) : undefined;
    const result =
      state.status === 'active' && attempt?.kind === 'compaction'
        ? resultOfEndedAttempt(request.sessionId, attempt, state, redelivered)
        : undefined;
    if (!result) throw new Error(`compaction attempt ${request.attemptId} did not end`);
    return result;
  }
}

/** What a compaction attempt asks: its trigger, its instructions, and whether it is forced. */
function attemptRequestOf(request: CompactRequest): AttemptRequest {
  const { sessionId, attemptId, trigger, customInstructions } = request;
  // `force` joins the digest only when set, so the digests of unforced requests stay as they were.
  const fields = {
    trigger,
    customInstructions: customInstructions ?? null,
    ...(request.force === true ? { force: true } : {}),
  };
  return { sessionId, attemptId, kind: 'compaction', requestDigest: attemptDigestOf('compaction', fields) };
}

function skip(attemptId: string, reason: string, ending: Ending): SessionCommand {
  return { type: 'SkipCompaction', data: { attemptId, reason, ...ending } };
}

function cancel(attemptId: string, reason: string, ending: Ending): SessionCommand {
  return { type: 'CancelCompaction', data: { attemptId, reason, ...ending } };
}

function spentWith(spent: Spent, draft: CompactionDraft): Spent {
  const model = draft.model ?? spent.model;
  const usage =
    spent.usage === undefined || draft.usage === undefined
      ? (draft.usage ?? spent.usage)
      : addUsage([spent.usage, draft.usage]);
  return { ...(model !== undefined ? { model } : {}), ...(usage !== undefined ? { usage } : {}) };
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
