// Ends the compaction and branch-summary attempts a stopped engine left open (issue 6: every
// started attempt ends in exactly one terminal event, even after SIGKILL). At start-up — in
// onModuleInit, so before the sagas and the projections start consuming the store — it finds
// the attempts started and never ended, and ends each one this process is not running with
// CompactionFailed / BranchSummaryFailed `{ code: 'interrupted' }`: the attempts a caller asked
// for (manual compactions, branch summaries), whose caller went with the engine. Automatic
// compactions are left open then: the sagas redeliver their triggers and take them up again,
// and those none took up are ended the same way once the sagas have caught up.
//
// An engine with a configured id (`STRATA_ENGINE_ID`, recorded on the attempts it starts) ends
// only the attempts it started itself, so several engines can share one store. Without one it
// assumes it is alone on its store and ends every attempt left open.
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { sessionIdSeed, type EventStore } from '@strata/event-store';
import { parseStoredSessionEvent } from '@strata/session-files';
import {
  SESSION_STREAM_PREFIX,
  type SessionAttempt,
  type SessionCommand,
  type SessionEvent,
  type SessionEventType,
} from '@strata/session';
import { SessionStreams } from '../session-streams/session-streams.service';
import { describeError } from '../shared/attempt-errors';
import type { Clock } from '../shared/clock';
import { engineOfMetadata, type EngineIdentity } from '../shared/engine-identity';
import { CLOCK, ENGINE_IDENTITY, EVENT_STORE } from '../shared/injection-tokens';
import { attemptMetadata } from './attempt-ids';
import { RunningAttempts, type AttemptKind } from './running-attempts.service';

/** Whether the engine ends interrupted attempts at start-up (a boolean; true by default). */
export const RECOVER_INTERRUPTED_ATTEMPTS = Symbol('RECOVER_INTERRUPTED_ATTEMPTS');

/** The error code recorded on an attempt ended because the engine stopped during it. */
export const INTERRUPTED_CODE = 'interrupted';
export const INTERRUPTED_MESSAGE = 'the engine stopped while the attempt was running';

export interface InterruptedAttempt {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly kind: SessionAttempt['kind'];
}

const startTypes: readonly SessionEventType[] = ['CompactionStarted', 'BranchSummaryStarted'];
const endTypes: readonly SessionEventType[] = [
  'CompactionCompleted',
  'CompactionSkipped',
  'CompactionCancelled',
  'CompactionFailed',
  'BranchSummaryCompleted',
  'BranchSummarySkipped',
  'BranchSummaryCancelled',
  'BranchSummaryFailed',
];

/** An attempt started and not ended, in its session. */
interface OpenAttempt {
  readonly attemptId: string;
  readonly kind: AttemptKind;
}

/** Whether a start event opens an automatic compaction or an attempt a caller asked for. */
function kindOf(event: SessionEvent): 'requested' | 'automatic' {
  return event.type === 'CompactionStarted' && event.data.trigger !== 'manual' ? 'automatic' : 'requested';
}

@Injectable()
export class InterruptedAttempts implements OnModuleInit {
  private readonly logger = new Logger('InterruptedAttempts');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly streams: SessionStreams,
    private readonly running: RunningAttempts,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RECOVER_INTERRUPTED_ATTEMPTS) private readonly enabled: boolean,
    @Inject(ENGINE_IDENTITY) private readonly identity: EngineIdentity,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.recover('requested');
  }

  /**
   * Ends the automatic compactions still open once the sagas have handled their history: those
   * no redelivered trigger took up (the saga runner calls it when it has caught up).
   */
  endUnclaimedAutomaticAttempts(): Promise<void> {
    return this.recover('automatic');
  }

  private async recover(which: 'requested' | 'automatic'): Promise<void> {
    if (!this.enabled) return;
    try {
      for (const attempt of await this.endOpenAttempts(which)) {
        this.logger.warn(
          `${attempt.kind} attempt ${attempt.attemptId} of session ${attempt.sessionId} was left open ` +
            `by a previous run; recorded as failed (${INTERRUPTED_CODE})`,
        );
      }
    } catch (error) {
      // A store that cannot be read now must not keep the engine from starting (readiness says so).
      this.logger.error(`could not look for interrupted attempts: ${describeError(error)}`);
    }
  }

  /**
   * Ends the attempts of this engine open in the store and not running in this process; returns
   * them. `requested`: those a caller asked for (manual compactions, branch summaries), whose
   * caller is gone; `automatic`: threshold and overflow compactions, which the sagas take up
   * again when their trigger is redelivered — ended only when none took them up.
   */
  async endOpenAttempts(which: 'requested' | 'automatic'): Promise<readonly InterruptedAttempt[]> {
    const ended: InterruptedAttempt[] = [];
    for (const [sessionId, attemptIds] of await this.sessionsWithOpenAttempts(which)) {
      const running = new Set(this.running.runningIds(sessionId));
      for (const { attemptId, kind } of attemptIds) {
        if (running.has(attemptId)) continue;
        const written = await this.streams.execute(
          sessionId,
          (state) => {
            if (state.status !== 'active') return [];
            const attempt = state.getAttempt(attemptId);
            return attempt === undefined || attempt.outcome !== null
              ? []
              : [interruptedEnding(attempt, this.clock.now())];
          },
          {
            idSeed: sessionIdSeed(sessionId, 'interrupted', attemptId),
            metadata: attemptMetadata(sessionId, attemptId, kind),
          },
        );
        const attempt = written.events.length > 0 ? written.state : undefined;
        if (attempt?.status === 'active') {
          const kind = attempt.getAttempt(attemptId)?.kind;
          if (kind !== undefined) ended.push({ sessionId, attemptId, kind });
        }
      }
    }
    return ended;
  }

  /** Attempt ids started and not ended, by session, from one filtered pass over the log. */
  private async sessionsWithOpenAttempts(
    which: 'requested' | 'automatic',
  ): Promise<Map<string, OpenAttempt[]>> {
    const open = new Map<string, { readonly sessionId: string; readonly kind: AttemptKind }>();
    const filter = { streamPrefixes: [SESSION_STREAM_PREFIX], eventTypes: [...startTypes, ...endTypes] };
    for await (const recorded of this.store.readAll({ filter })) {
      const event = parseStoredSessionEvent(recorded);
      if (!('attemptId' in event.data)) continue;
      const sessionId = recorded.streamId.slice(SESSION_STREAM_PREFIX.length);
      const key = `${sessionId}\u0000${event.data.attemptId}`;
      if (!startTypes.includes(event.type)) open.delete(key);
      else if (this.isOwnStart(recorded.metadata) && kindOf(event) === which) {
        open.set(key, {
          sessionId,
          kind: event.type === 'CompactionStarted' ? 'compaction' : 'branch_summary',
        });
      }
    }
    const bySession = new Map<string, OpenAttempt[]>();
    for (const [key, { sessionId, kind }] of open) {
      const attemptId = key.slice(sessionId.length + 1);
      bySession.set(sessionId, [...(bySession.get(sessionId) ?? []), { attemptId, kind }]);
    }
    return bySession;
  }

  /**
   * Whether this engine started the attempt (and so left it open): any start for an engine
   * without a configured id (alone on its store), else only the starts that record its id.
   */
  private isOwnStart(metadata: Readonly<Record<string, unknown>>): boolean {
    return !this.identity.configured || engineOfMetadata(metadata) === this.identity.id;
  }
}

/** The command that ends `attempt` as interrupted at `now` (ms, on the engine's clock). */
export function interruptedEnding(attempt: SessionAttempt, now: number): SessionCommand {
  const data = {
    attemptId: attempt.attemptId,
    error: { code: INTERRUPTED_CODE, message: INTERRUPTED_MESSAGE },
    durationMs: Math.max(0, now - attempt.started.startedAt),
  };
  switch (attempt.kind) {
    case 'compaction':
      return { type: 'FailCompaction', data };
    case 'branch_summary':
      return { type: 'FailBranchSummary', data };
    default: {
      const unhandled: never = attempt;
      throw new Error(`unhandled attempt ${JSON.stringify(unhandled)}`);
    }
  }
}
