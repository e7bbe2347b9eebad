// How an agent host learns that a compaction is under way, and waits for it (issue 13,
// docs/agent-hosts.md). After an append, `askedBy` names the automatic compaction it asked for:
// one the sagas have already started for one of its entries (the attempt id derives from the
// entry's event id; only an idempotent repeat can find one), or else the one the sagas' own rules
// ask for on the session as the append left it (compaction-forecast.ts; a fresh append hands
// over the state it left, which is not read again). Only batches holding a user or assistant
// message are looked at, and a batch that asks for nothing costs a walk of its path. `waitUntilSettled` waits, up to a bound, until the sagas have reacted to every
// event of the session (their compactions run to the end inside that reaction) and no
// compaction attempt of the session — automatic or manual, of this engine or another — is open.
// Both say how each attempt ended (compaction-reports.ts): an append's answer when its attempt
// already ended, a wait for every attempt it saw open or starting and for those of the session's
// latest message, which may have ended before the wait began.
import { Inject, Injectable } from '@nestjs/common';
import type { ActiveSessionState, TokenCounter } from '@strata/session';
import { ELSEWHERE_POLL_MS } from '../attempts/attempts-elsewhere';
import { RunningAttempts } from '../attempts/running-attempts.service';
import { SessionStreams } from '../session-streams/session-streams.service';
import type { EngineSettings } from '../settings/engine-settings.schema';
import { ENGINE_SETTINGS, TOKEN_COUNTER } from '../shared/injection-tokens';
import { compactionAskedBy, type AppendedEntry, type AskedCompaction } from './compaction-forecast';
import {
  compactionReportById,
  compactionReportOf,
  latestMessageCompactionIds,
  type CompactionReport,
} from './compaction-reports';
import { autoCompactionAttemptId } from './saga-ids';
import { SagaRunner } from './saga-runner.service';
import { sagaViewOf } from './saga-view';

/** How a wait for the session's compactions ended. */
export interface CompactionWait {
  /** `settled`: no compaction attempt is open and none is about to start; `timed_out`: the bound passed first. */
  readonly outcome: 'settled' | 'timed_out';
  readonly waitedMs: number;
  /** The compaction attempts seen open while waiting; when timed out, those still open. */
  readonly attemptIds: readonly string[];
  /**
   * How the session's recent compaction attempts ended, in start order: every attempt seen open
   * or started while waiting, and those of the session's latest message.
   */
  readonly attempts: readonly CompactionReport[];
}

/** The automatic compaction an append asked for, and how it has ended so far. */
export type AskedCompactionReport = AskedCompaction &
  Pick<CompactionReport, 'outcome' | 'reason' | 'willRetry' | 'entryId'>;

const NOT_STARTED = { outcome: null, reason: null, willRetry: false, entryId: null } as const;

function compactionIds(state: ActiveSessionState): string[] {
  return state
    .attempts()
    .filter((attempt) => attempt.kind === 'compaction')
    .map((attempt) => attempt.attemptId);
}

/** The reports of the attempts the wait saw or that belong to the session's latest message. */
function reportsOf(state: ActiveSessionState, seen: ReadonlySet<string>): CompactionReport[] {
  const latest = new Set(latestMessageCompactionIds(state));
  return state
    .attempts()
    .flatMap((attempt) =>
      attempt.kind === 'compaction' && (seen.has(attempt.attemptId) || latest.has(attempt.attemptId))
        ? [compactionReportOf(attempt)]
        : [],
    );
}

const AUTOMATIC_TRIGGERS = ['threshold', 'overflow'] as const;

function openCompactionIds(state: ActiveSessionState): string[] {
  return state
    .attempts()
    .filter((attempt) => attempt.kind === 'compaction' && attempt.outcome === null)
    .map((attempt) => attempt.attemptId);
}

function isMessage({ entry }: AppendedEntry): boolean {
  return entry.type === 'message' && (entry.message.role === 'user' || entry.message.role === 'assistant');
}

/** Whether the client behind `signal` went away (a call, so that awaits do not narrow it). */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * Resolves true when `work` settles before `deadline` (epoch ms), false when the deadline comes
 * first or `signal` aborts.
 */
async function before(deadline: number, work: Promise<unknown>, signal?: AbortSignal): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
    onAbort = () => resolve(false);
    if (aborted(signal)) resolve(false);
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  }
}

@Injectable()
export class CompactionWaits {
  constructor(
    private readonly streams: SessionStreams,
    private readonly sagas: SagaRunner,
    private readonly attempts: RunningAttempts,
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
    @Inject(TOKEN_COUNTER) private readonly tokenCounter: TokenCounter,
  ) {}

  /**
   * The automatic compaction the append of `appended` asked for; undefined when none.
   * `sessionAfter` is the session as a fresh append left it: the forecast is made on it, without
   * reading the session again, and no attempt is looked for (the attempts its entries set off
   * start after it, so it holds none). Without it (an idempotent repeat), the session is read as
   * it is now, and an attempt the sagas already started for one of the entries is reported.
   */
  async askedBy(
    sessionId: string,
    tenant: string,
    appended: readonly AppendedEntry[],
    sessionAfter?: ActiveSessionState,
  ): Promise<AskedCompactionReport | undefined> {
    if (!appended.some(isMessage)) return undefined;
    const state = sessionAfter ?? (await this.streams.state(sessionId));
    const started = sessionAfter === undefined ? this.startedFor(state, appended) : undefined;
    if (started !== undefined) return started;
    const view = sagaViewOf(state, this.settings, this.tokenCounter);
    const asked = compactionAskedBy({ sessionId, tenant }, appended, view);
    return asked === undefined ? undefined : { ...asked, ...NOT_STARTED };
  }

  /** The automatic compaction attempt the session holds for one of the entries, newest first. */
  private startedFor(
    state: ActiveSessionState,
    appended: readonly AppendedEntry[],
  ): AskedCompactionReport | undefined {
    for (const { eventId } of [...appended].reverse()) {
      for (const trigger of AUTOMATIC_TRIGGERS) {
        const attemptId = autoCompactionAttemptId(eventId, trigger);
        const report = compactionReportById(state, attemptId);
        if (report !== undefined) {
          const { outcome, reason, willRetry, entryId } = report;
          return { attemptId, trigger, outcome, reason, willRetry, entryId };
        }
      }
    }
    return undefined;
  }

  /**
   * Waits until the session's compactions have settled, at most `timeoutMs`. An aborted `signal`
   * (the client went away) ends the wait at once, as `timed_out`.
   */
  async waitUntilSettled(
    sessionId: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<CompactionWait> {
    const startedAt = Date.now();
    const deadline = startedAt + timeoutMs;
    const seen = new Set<string>();
    const knownAtStart = new Set(compactionIds(await this.streams.state(sessionId)));
    let latestState: ActiveSessionState | undefined;
    const ended = (outcome: CompactionWait['outcome'], open: readonly string[]): CompactionWait => {
      // An attempt that started and ended between two looks was never seen open: it is reported too.
      const reported = new Set(seen);
      const state = latestState;
      if (state !== undefined) {
        for (const attemptId of compactionIds(state))
          if (!knownAtStart.has(attemptId)) reported.add(attemptId);
      }
      return {
        outcome,
        waitedMs: Date.now() - startedAt,
        attemptIds: outcome === 'settled' ? [...seen] : [...open],
        attempts: state === undefined ? [] : reportsOf(state, reported),
      };
    };
    const openNow = async (): Promise<string[]> => {
      latestState = await this.streams.state(sessionId);
      const open = openCompactionIds(latestState);
      for (const attemptId of open) seen.add(attemptId);
      return open;
    };
    for (;;) {
      if (aborted(signal)) return ended('timed_out', await openNow());
      const head = await this.streams.headPosition(sessionId);
      await openNow();
      const reacted = await before(deadline, this.sagas.waitForSession(sessionId), signal);
      const open = await openNow();
      if (aborted(signal)) return ended('timed_out', open);
      if (reacted && open.length === 0) {
        // Ending an attempt writes events the sagas react to in turn (a continuation).
        if ((await this.streams.headPosition(sessionId)) === head) return ended('settled', open);
        continue;
      }
      if (Date.now() >= deadline) return ended('timed_out', open);
      if (open.length === 0) continue;
      // An attempt running here is awaited; one another engine runs is read again shortly.
      const running = this.attempts.whenEnded(sessionId, open);
      await before(
        deadline,
        running ?? new Promise((resolve) => setTimeout(resolve, ELSEWHERE_POLL_MS)),
        signal,
      );
    }
  }
}
