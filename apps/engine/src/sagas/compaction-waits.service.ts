// How an agent host learns that a compaction is under way, and waits for it (issue 13,
// docs/agent-hosts.md). After an append, `askedBy` names the automatic compaction it asked for:
// one the sagas have already started for one of its entries (the attempt id derives from the
// entry's event id), or else the one the sagas' own rules ask for on the session as the append
// left it (compaction-forecast.ts). Only batches holding a user or assistant message are
// looked at, and a batch that asks for nothing costs one read of the cached session and a walk
// of its path. `waitUntilSettled` waits, up to a bound, until the sagas have reacted to every
// event of the session (their compactions run to the end inside that reaction) and no
// compaction attempt of the session — automatic or manual, of this engine or another — is open.
import { Inject, Injectable } from '@nestjs/common';
import type { ActiveSessionState, TokenCounter } from '@strata/session';
import { ELSEWHERE_POLL_MS } from '../attempts/attempts-elsewhere';
import { RunningAttempts } from '../attempts/running-attempts.service';
import { SessionStreams } from '../session-streams/session-streams.service';
import type { EngineSettings } from '../settings/engine-settings.schema';
import { ENGINE_SETTINGS, TOKEN_COUNTER } from '../shared/injection-tokens';
import { compactionAskedBy, type AppendedEntry, type AskedCompaction } from './compaction-forecast';
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

  /** The automatic compaction the append of `appended` asked for; undefined when none. */
  async askedBy(
    sessionId: string,
    tenant: string,
    appended: readonly AppendedEntry[],
  ): Promise<AskedCompaction | undefined> {
    if (!appended.some(isMessage)) return undefined;
    const state = await this.streams.state(sessionId);
    for (const { eventId } of [...appended].reverse()) {
      for (const trigger of AUTOMATIC_TRIGGERS) {
        const attemptId = autoCompactionAttemptId(eventId, trigger);
        if (state.getAttempt(attemptId)?.kind === 'compaction') return { attemptId, trigger };
      }
    }
    const view = sagaViewOf(state, this.settings, this.tokenCounter);
    return compactionAskedBy({ sessionId, tenant }, appended, view);
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
    const ended = (outcome: CompactionWait['outcome'], open: readonly string[]): CompactionWait => ({
      outcome,
      waitedMs: Date.now() - startedAt,
      attemptIds: outcome === 'settled' ? [...seen] : [...open],
    });
    const openNow = async (): Promise<string[]> => {
      const open = openCompactionIds(await this.streams.state(sessionId));
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
