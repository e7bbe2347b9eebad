// The attempts started and not ended on the store, by the engine that started them, kept in memory
// from the store's start and end events read forwards (decision 0017). The engine that looks for
// attempts to take over reads only what was appended since its previous look, so each event of
// the log is read once in the engine's life, whatever the number of looks.
import type { RecordedEvent } from '@strata/event-store';
import type { CompactionTrigger, SessionEventType } from '@strata/session';
import { SESSION_STREAM_PREFIX } from '@strata/session';
import { engineOfMetadata } from '../shared/engine-identity';
import type { AttemptKind } from './running-attempts.service';

export const ATTEMPT_START_TYPES: readonly SessionEventType[] = ['CompactionStarted', 'BranchSummaryStarted'];
export const ATTEMPT_END_TYPES: readonly SessionEventType[] = [
  'CompactionCompleted',
  'CompactionSkipped',
  'CompactionCancelled',
  'CompactionFailed',
  'BranchSummaryCompleted',
  'BranchSummarySkipped',
  'BranchSummaryCancelled',
  'BranchSummaryFailed',
];

/** An attempt open on the store. */
export interface IndexedAttempt {
  readonly sessionId: string;
  readonly attemptId: string;
  readonly kind: AttemptKind;
  /** Compactions: how they were asked for; null for branch summaries. */
  readonly trigger: CompactionTrigger | null;
  /** The engine recorded on its start; undefined when it records none. */
  readonly engine: string | undefined;
}

function attemptIdOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || !('attemptId' in data)) return undefined;
  const { attemptId } = data as { readonly attemptId: unknown };
  return typeof attemptId === 'string' ? attemptId : undefined;
}

function triggerOf(data: unknown): CompactionTrigger | null {
  if (typeof data !== 'object' || data === null || !('trigger' in data)) return null;
  const { trigger } = data as { readonly trigger: unknown };
  return trigger === 'manual' || trigger === 'threshold' || trigger === 'overflow' ? trigger : null;
}

export class OpenAttemptsIndex {
  private readonly open = new Map<string, IndexedAttempt>();
  private next: bigint | 'start' = 'start';

  /** The position to read from next (after the last event applied). */
  get fromPosition(): bigint | 'start' {
    return this.next;
  }

  /** Applies one stored event of the filtered log (start and end events of session streams). */
  apply(recorded: RecordedEvent): void {
    this.next = recorded.position + 1n;
    if (!recorded.streamId.startsWith(SESSION_STREAM_PREFIX)) return;
    const attemptId = attemptIdOf(recorded.data);
    if (attemptId === undefined) return;
    const sessionId = recorded.streamId.slice(SESSION_STREAM_PREFIX.length);
    const key = `${sessionId}\u0000${attemptId}`;
    if (ATTEMPT_END_TYPES.includes(recorded.type as SessionEventType)) {
      this.open.delete(key);
    } else if (ATTEMPT_START_TYPES.includes(recorded.type as SessionEventType)) {
      const compaction = recorded.type === 'CompactionStarted';
      this.open.set(key, {
        sessionId,
        attemptId,
        kind: compaction ? 'compaction' : 'branch_summary',
        trigger: compaction ? triggerOf(recorded.data) : null,
        engine: engineOfMetadata(recorded.metadata),
      });
    }
  }

  /**
   * Forgets an attempt found ended (or its session gone) when read on its own: its end event, when
   * there is one, comes later in the log and changes nothing.
   */
  forget(sessionId: string, attemptId: string): void {
    this.open.delete(`${sessionId}\u0000${attemptId}`);
  }

  /** The open attempts of each engine recorded on their starts (starts naming none are left out). */
  byEngine(): ReadonlyMap<string, readonly IndexedAttempt[]> {
    const grouped = new Map<string, IndexedAttempt[]>();
    for (const attempt of this.open.values()) {
      if (attempt.engine === undefined) continue;
      grouped.set(attempt.engine, [...(grouped.get(attempt.engine) ?? []), attempt]);
    }
    return grouped;
  }
}
