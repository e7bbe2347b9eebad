// The one runner of summary attempts (decision 0012): it carries out the effects of the pure
// attempt workflow (@strata/session `decideAttempt`/`evolveAttempt`) for a use case's steps and
// feeds back what each came to, until the attempt has an outcome. What is the same for every
// attempt lives here: an attempt id that was used before (the same request, or a mismatch; ended,
// started by this engine before it stopped, or run by another engine), the writes of its start
// (seeded by session and attempt, with the request's digest and this engine's id) and of its
// outcome, its duration on the engine's clock, its summary calls, and the errors that end it.
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  attemptEndingCommand,
  beginAttempt,
  decideAttempt,
  evolveAttempt,
  SessionDomainError,
  type ActiveSessionState,
  type AttemptEffect,
  type AttemptInput,
  type AttemptSpending,
  type AttemptVerdict,
  type SessionAttempt,
  type SessionCommand,
  type SessionState,
} from '@strata/session';
import {
  SessionStreams,
  type SessionPlan,
  type SessionWriteOptions,
} from '../session-streams/session-streams.service';
import { attemptErrorOf, describeError, isAbort } from '../shared/attempt-errors';
import { isoTimestamp, type Clock } from '../shared/clock';
import { writeContextOf, type CommandContext } from '../shared/command-context';
import {
  ENGINE_METADATA_KEY,
  engineOfMetadata,
  isOwnEarlierAttempt,
  type EngineIdentity,
} from '../shared/engine-identity';
import { CLOCK, ENGINE_IDENTITY } from '../shared/injection-tokens';
import { EngineLease } from './engine-lease.service';
import { SummaryCallLog } from '../summarizers/summary-calls';
import { traceAttempt } from '../observability/tracing/engine-spans';
import { attemptMetadata, attemptOutcomeSeed, attemptStartSeeds } from './attempt-ids';
import { requireSameAttempt, type AttemptRequest } from './attempt-requests';
import {
  AttemptRunningElsewhereError,
  outcomeFromElsewhere,
  type WhenRunningElsewhere,
} from './attempts-elsewhere';

/** A round's preparation and how it came out. */
export interface AttemptPrepared<Preparation> {
  readonly preparation: Preparation;
  readonly verdict: AttemptVerdict;
}

/** What producing a summary came to: a draft, or a cancellation (a hook's, or the abort signal's). */
export type AttemptProduced<Draft> =
  { readonly kind: 'draft'; readonly draft: Draft } | { readonly kind: 'cancelled'; readonly reason: string };

/** What the runner knows when a summary is recorded. */
export interface AttemptFinishing {
  readonly timestamp: string;
  /** Since the attempt started, on the engine's clock. */
  readonly durationMs: number;
  readonly calls: SummaryCallLog;
}

/** What differs between the kinds of attempts: the use case's side of the workflow. */
export interface AttemptSteps<Preparation, Draft extends AttemptSpending, Result> {
  /** The request, as its digest and ids name it. */
  readonly request: AttemptRequest;
  /** Who the attempt runs for: its events record the actor (the engine when absent). */
  readonly context?: CommandContext;
  readonly whenRunningElsewhere?: WhenRunningElsewhere;
  /** How many rounds may prepare: a stale record prepares again while rounds are left. */
  readonly maxRounds: number;
  /** Prepares round `round` (the first on the state the attempt loaded, later ones on a fresh read). */
  prepare(round: number): Promise<AttemptPrepared<Preparation>>;
  /** The command that starts the attempt, started at `startedAt` on the engine's clock. */
  start(preparation: Preparation, startedAt: number): SessionCommand;
  /** The hooks and the summarisers, under the attempt's abort signal. */
  produce(
    preparation: Preparation,
    signal: AbortSignal,
    calls: SummaryCallLog,
  ): Promise<AttemptProduced<Draft>>;
  /** The plan that records the summary (it may end the attempt stale, or write nothing when stale). */
  record(preparation: Preparation, draft: Draft, finishing: AttemptFinishing): Promise<SessionPlan>;
  /** The outcome of the ended attempt in `state`; undefined when it has none there. */
  ended(state: SessionState, redelivered: boolean): Result | undefined;
  /** Settles a request whose preparation declined the attempt (nothing of it is recorded). */
  decline(preparation: Preparation, reason: string): Promise<Result>;
}

/** What the session already holds of an attempt id: an outcome, or whether to run it (again). */
export type AttemptResumption<Result> =
  | { readonly kind: 'ended'; readonly result: Result }
  | { readonly kind: 'run'; readonly alreadyStarted: boolean };

@Injectable()
export class AttemptRunner {
  private readonly logger = new Logger('AttemptRunner');

  constructor(
    private readonly streams: SessionStreams,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ENGINE_IDENTITY) private readonly identity: EngineIdentity,
    @Optional() private readonly lease?: EngineLease,
  ) {}

  /**
   * What `state` holds of the attempt: nothing (run it); the same request, ended (its outcome) or
   * started by this engine before it stopped (run it again, its start stored); or started by
   * another engine (its outcome, waited for or left to that engine). The same id for another
   * request, or another kind of attempt, is refused (`IdempotencyMismatchError`); `sameStart` is
   * the use case's check of what the recorded start holds.
   */
  async resume<Result>(
    state: ActiveSessionState,
    steps: Pick<AttemptSteps<unknown, AttemptSpending, Result>, 'request' | 'whenRunningElsewhere' | 'ended'>,
    sameStart: (attempt: SessionAttempt) => boolean,
  ): Promise<AttemptResumption<Result>> {
    const { request } = steps;
    const existing = state.getAttempt(request.attemptId);
    if (existing === undefined) return { kind: 'run', alreadyStarted: false };
    await requireSameAttempt(this.streams, request, existing, sameStart(existing));
    if (existing.outcome !== null) {
      const result = steps.ended(state, true);
      if (result !== undefined) return { kind: 'ended', result };
    }
    const engine = await this.startEngineOf(request);
    if (isOwnEarlierAttempt(this.identity, engine)) return { kind: 'run', alreadyStarted: true };
    return { kind: 'ended', result: await this.fromElsewhere(steps) };
  }

  /** Runs the attempt to its outcome under `signal` (in a span of its own, when tracing). */
  run<Preparation, Draft extends AttemptSpending, Result>(
    steps: AttemptSteps<Preparation, Draft, Result>,
    alreadyStarted: boolean,
    signal: AbortSignal,
  ): Promise<Result> {
    return traceAttempt(steps.request, () => this.runAttempt(steps, alreadyStarted, signal));
  }

  private async runAttempt<Preparation, Draft extends AttemptSpending, Result>(
    steps: AttemptSteps<Preparation, Draft, Result>,
    alreadyStarted: boolean,
    signal: AbortSignal,
  ): Promise<Result> {
    const { sessionId } = steps.request;
    const startedAt = this.clock.now();
    const calls = new SummaryCallLog();
    let { progress, effect } = beginAttempt<Preparation, Draft>({
      maxRounds: steps.maxRounds,
      alreadyStarted,
    });
    let state: SessionState | undefined;
    let lastError: unknown;
    const durationMs = (): number => Math.max(0, this.clock.now() - startedAt);
    /** Carries out a writing or preparing effect; answers what it came to. */
    const carryOut = async (
      step: Exclude<
        AttemptEffect<Preparation, Draft>,
        { type: 'Finish' | 'Decline' | 'FollowElsewhere' | 'Raise' }
      >,
    ): Promise<AttemptInput<Preparation, Draft>> => {
      switch (step.type) {
        case 'Prepare':
          return { type: 'Prepared', ...(await steps.prepare(step.round)) };
        case 'AppendStart': {
          // an engine that ran no attempt for a while let its lease lapse: renewed before the
          // start is visible, so that no other engine takes over an attempt just begun
          await this.lease?.ensureLive();
          const written = await this.streams.execute(
            sessionId,
            steps.start(step.preparation, startedAt),
            this.startWrite(steps),
          );
          state = written.state;
          // Another engine wrote the same start first (both reacted to one event): it summarises.
          const here = !written.alreadyHandled && (await this.startedHere(sessionId, written.revision));
          return { type: here ? 'StartStored' : 'StartTakenElsewhere' };
        }
        case 'Produce': {
          const produced = await steps.produce(step.preparation, signal, calls);
          return produced.kind === 'cancelled'
            ? { type: 'ProductionCancelled', reason: produced.reason }
            : { type: 'Produced', draft: produced.draft, aborted: signal.aborted };
        }
        case 'AppendRecord': {
          const finishing = { timestamp: isoTimestamp(this.clock), durationMs: durationMs(), calls };
          const plan = await steps.record(step.preparation, step.draft, finishing);
          const written = await this.streams.execute(sessionId, plan, this.outcomeWrite(steps));
          state = written.state;
          if (written.events.length === 0 && !written.alreadyHandled) return { type: 'RecordStale' };
          return { type: 'RecordStored', redelivered: written.alreadyHandled };
        }
        case 'AppendEnding': {
          const { ending } = step;
          if (ending.kind === 'fail') {
            this.logger.warn(
              `${kindName(steps)} ${steps.request.attemptId} of ${sessionId} failed: ${describeError(lastError)}`,
            );
          }
          const end = attemptEndingCommand(steps.request.kind, steps.request.attemptId, ending, {
            durationMs: durationMs(),
            ...step.spent,
            ...calls.fields(),
          });
          const written = await this.streams.execute(
            sessionId,
            step.start !== undefined ? [steps.start(step.start, startedAt), end] : [end],
            step.start !== undefined ? this.startWrite(steps) : this.outcomeWrite(steps),
          );
          state = written.state;
          return { type: 'EndingStored', redelivered: written.alreadyHandled };
        }
      }
    };
    for (;;) {
      switch (effect.type) {
        case 'Finish':
          return this.outcome(steps, state ?? (await this.streams.state(sessionId)), effect.redelivered);
        case 'Decline':
          return steps.decline(requirePreparation(progress.preparation), effect.reason);
        case 'FollowElsewhere':
          return this.fromElsewhere(steps);
        case 'Raise':
          throw lastError;
        case 'Prepare':
        case 'AppendStart':
        case 'Produce':
        case 'AppendRecord':
        case 'AppendEnding':
          break;
      }
      let input: AttemptInput<Preparation, Draft>;
      try {
        input = await carryOut(effect);
      } catch (error) {
        lastError = error;
        const endedElsewhere = error instanceof SessionDomainError && error.code === 'already_exists';
        // The attempt's outcome is read afresh: what the failed write left is not it.
        if (endedElsewhere) state = undefined;
        input = {
          type: 'Failed',
          error: attemptErrorOf(error),
          aborted: isAbort(error, signal),
          endedElsewhere,
        };
      }
      const next = decideAttempt(progress, input);
      progress = evolveAttempt(progress, input);
      effect = next;
    }
  }

  /** The outcome of an attempt another engine runs, once it ends; or leave it to that engine. */
  async fromElsewhere<Result>(
    steps: Pick<AttemptSteps<unknown, AttemptSpending, Result>, 'request' | 'whenRunningElsewhere' | 'ended'>,
  ): Promise<Result> {
    const { sessionId, attemptId } = steps.request;
    if (steps.whenRunningElsewhere === 'leave') {
      throw new AttemptRunningElsewhereError(sessionId, attemptId, undefined);
    }
    const { state } = await outcomeFromElsewhere(
      () => this.streams.state(sessionId),
      sessionId,
      attemptId,
      undefined,
    );
    return this.outcome(steps, state, true);
  }

  private outcome<Result>(
    steps: Pick<AttemptSteps<unknown, AttemptSpending, Result>, 'request' | 'ended'>,
    state: SessionState,
    redelivered: boolean,
  ): Result {
    const result = steps.ended(state, redelivered);
    if (result === undefined)
      throw new Error(`${kindName(steps)} attempt ${steps.request.attemptId} did not end`);
    return result;
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
  private async startEngineOf(request: AttemptRequest): Promise<string | undefined> {
    const seeds = attemptStartSeeds(request.sessionId, request.attemptId, request.kind);
    const earlier = await this.streams.earlierWrite(request.sessionId, seeds);
    if (earlier === undefined) return undefined;
    const metadata = await this.streams.metadataAt(request.sessionId, earlier.revision);
    return metadata === undefined ? undefined : engineOfMetadata(metadata);
  }

  /**
   * How the attempt's first event is written: seeded by session and attempt, with the request's
   * digest, this engine's id and the attempt's correlation id (attempt-ids.ts), for the request's
   * context (its tenant and actor).
   */
  private startWrite(
    steps: Pick<AttemptSteps<unknown, AttemptSpending, unknown>, 'request' | 'context'>,
  ): SessionWriteOptions {
    const { sessionId, attemptId, kind, requestDigest } = steps.request;
    return {
      idSeed: attemptStartSeeds(sessionId, attemptId, kind).idSeed,
      requestDigest,
      metadata: { [ENGINE_METADATA_KEY]: this.identity.id, ...attemptMetadata(sessionId, attemptId, kind) },
      ...writeContextOf(steps.context ?? {}),
    };
  }

  /** How the attempt's outcome is written: seeded by session and attempt, with its correlation id. */
  private outcomeWrite(
    steps: Pick<AttemptSteps<unknown, AttemptSpending, unknown>, 'request' | 'context'>,
  ): SessionWriteOptions {
    const { sessionId, attemptId, kind } = steps.request;
    return {
      idSeed: attemptOutcomeSeed(sessionId, attemptId, kind),
      metadata: attemptMetadata(sessionId, attemptId, kind),
      ...writeContextOf(steps.context ?? {}),
    };
  }
}

function kindName(steps: Pick<AttemptSteps<unknown, AttemptSpending, unknown>, 'request'>): string {
  return steps.request.kind === 'compaction' ? 'compaction' : 'branch summary';
}

function requirePreparation<Preparation>(preparation: Preparation | undefined): Preparation {
  if (preparation === undefined) throw new Error('an attempt declined before it prepared');
  return preparation;
}
