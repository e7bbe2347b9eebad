// The compaction and branch-summary attempts running in this process, each with the abort
// controller that AbortCompaction trips. Running the same attempt id again while it runs joins
// the running one instead of starting a second (an in-process redelivery writes nothing twice),
// provided it asks the same: another kind or another request digest is an idempotency mismatch.
import { Injectable } from '@nestjs/common';
import { IdempotencyMismatchError } from '../shared/idempotency';

export type AttemptKind = 'compaction' | 'branch_summary';

interface RunningAttempt {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly kind: AttemptKind;
  readonly requestDigest: string | undefined;
  readonly controller: AbortController;
  readonly done: Promise<unknown>;
}

export interface AbortFilter {
  /** Only this attempt; every running attempt of the session otherwise. */
  readonly attemptId?: string;
  /** Only attempts of this kind. */
  readonly kind?: AttemptKind;
}

function keyOf(sessionId: string, attemptId: string): string {
  return `${sessionId}\u0000${attemptId}`;
}

@Injectable()
export class RunningAttempts {
  private readonly running = new Map<string, RunningAttempt>();

  /** How many attempts run in this process now. */
  get count(): number {
    return this.running.size;
  }

  /**
   * Runs `work` as the attempt `attemptId` with a fresh abort signal, or joins the run already
   * in progress under that id (its result is returned to both callers). Throws
   * `IdempotencyMismatchError` when the running attempt is of another kind or another request.
   */
  run<Result>(
    sessionId: string,
    attemptId: string,
    kind: AttemptKind,
    work: (signal: AbortSignal) => Promise<Result>,
    requestDigest?: string,
  ): Promise<Result> {
    const key = keyOf(sessionId, attemptId);
    const existing = this.running.get(key);
    if (existing) {
      if (existing.kind !== kind || existing.requestDigest !== requestDigest) {
        const running = existing.kind === 'compaction' ? 'a running compaction' : 'a running branch summary';
        return Promise.reject(
          new IdempotencyMismatchError('attemptId', attemptId, `${running} of another request`),
        );
      }
      return existing.done as Promise<Result>;
    }
    const controller = new AbortController();
    const done = Promise.resolve()
      .then(() => work(controller.signal))
      .finally(() => this.running.delete(key));
    this.running.set(key, { sessionId, attemptId, kind, requestDigest, controller, done });
    return done;
  }

  /** Aborts the matching running attempts of the session; returns their ids. */
  abort(sessionId: string, filter: AbortFilter = {}, reason = 'aborted'): string[] {
    const aborted: string[] = [];
    for (const attempt of this.running.values()) {
      if (attempt.sessionId !== sessionId) continue;
      if (filter.attemptId !== undefined && attempt.attemptId !== filter.attemptId) continue;
      if (filter.kind !== undefined && attempt.kind !== filter.kind) continue;
      if (!attempt.controller.signal.aborted) {
        attempt.controller.abort(new Error(reason));
        aborted.push(attempt.attemptId);
      }
    }
    return aborted;
  }

  /**
   * Resolves once those of the named attempts of the session that run in this process have
   * ended (however they ended); undefined when none of them runs here.
   */
  whenEnded(sessionId: string, attemptIds: readonly string[]): Promise<void> | undefined {
    const running = attemptIds.flatMap((attemptId) => {
      const attempt = this.running.get(keyOf(sessionId, attemptId));
      return attempt === undefined ? [] : [attempt.done];
    });
    if (running.length === 0) return undefined;
    return Promise.allSettled(running).then(() => undefined);
  }

  /** Ids of the session's running attempts (of one kind when given). */
  runningIds(sessionId: string, kind?: AttemptKind): string[] {
    return [...this.running.values()]
      .filter((attempt) => attempt.sessionId === sessionId && (kind === undefined || attempt.kind === kind))
      .map((attempt) => attempt.attemptId);
  }
}
