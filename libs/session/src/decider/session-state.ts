// The session decider's state and its fold (`initialState`, `evolve`). A state is either
// `empty` (nothing recorded yet) or `active` (started). An active state is immutable from the
// outside: it keeps a few scalars (header, leaf, counts) and reads everything else from a
// `SessionLog` shared with the other states of its fold (see session-log.ts for the
// visibility and copy-on-fork rules), so folding N events costs O(N) and an earlier state
// never observes a later event. The read helpers below are the only way into the log.
import type { PrunedResult } from '../context/build-session-context';
import type { CustomEntry, SessionEntry, SessionHeader } from '../entries/entries';
import type {
  BranchSummaryOutcome,
  BranchSummaryStartedEvent,
  CompactionOutcome,
  CompactionStartedEvent,
  ContinuationRequestedEvent,
  LeaseEvent,
  SessionEvent,
} from './session-events';
import { EntryPaths } from './entry-paths';
import { SessionLog, type AttemptOutcome } from './session-log';

export interface CompactionAttempt {
  readonly kind: 'compaction';
  readonly attemptId: string;
  readonly started: CompactionStartedEvent['data'];
  /** The terminal event, or null while the attempt is open. */
  readonly outcome: CompactionOutcome | null;
  readonly continuation: ContinuationRequestedEvent['data'] | null;
}

export interface BranchSummaryAttempt {
  readonly kind: 'branch_summary';
  readonly attemptId: string;
  readonly started: BranchSummaryStartedEvent['data'];
  readonly outcome: BranchSummaryOutcome | null;
}

export type SessionAttempt = CompactionAttempt | BranchSummaryAttempt;

/** The session's latest writer lease as recorded (lease-events.ts); whether it is in force depends on the time. */
export interface SessionLease {
  readonly sequence: number;
  readonly token: string;
  readonly holder: string;
  readonly expiresAt: number;
  readonly released: boolean;
}

export interface EmptySessionState {
  readonly status: 'empty';
}

export class ActiveSessionState {
  readonly status = 'active' as const;

  private constructor(
    readonly header: SessionHeader,
    /** The current leaf; null means the next entry becomes a new root. */
    readonly leafId: string | null,
    /** How many entries this state sees, in append order. */
    readonly entryCount: number,
    private readonly tick: number,
    private readonly log: SessionLog,
    /** The latest writer lease (null before the first). */
    readonly lease: SessionLease | null = null,
  ) {}

  /** What the entries this state sees weigh in memory bounds (`entryWeight`, summed). */
  get weight(): number {
    return this.log.weightOf(this.entryCount);
  }

  static started(header: SessionHeader): ActiveSessionState {
    return new ActiveSessionState(header, null, 0, 0, SessionLog.empty());
  }

  hasEntry(entryId: string): boolean {
    return this.log.indexOf(entryId, this.entryCount) !== undefined;
  }

  getEntry(entryId: string): SessionEntry | undefined {
    const index = this.log.indexOf(entryId, this.entryCount);
    return index === undefined ? undefined : this.log.entryAt(index);
  }

  /** Every entry, in append order. */
  entries(): readonly SessionEntry[] {
    return this.log.entriesBefore(this.entryCount);
  }

  /** Root→entry path (inclusive); [] for an unknown id. */
  pathTo(entryId: string): readonly SessionEntry[] {
    const reversed: SessionEntry[] = [];
    let index = this.log.indexOf(entryId, this.entryCount);
    while (index !== undefined) {
      reversed.push(this.log.entryAt(index));
      index = this.log.parentIndexAt(index);
    }
    return reversed.reverse();
  }

  /** Root→leaf path; [] when the leaf is null. */
  currentPath(): readonly SessionEntry[] {
    return this.leafId === null ? [] : this.pathTo(this.leafId);
  }

  /** Whether `ancestorId` is `entryId` or one of its ancestors. */
  isOnPathTo(ancestorId: string, entryId: string): boolean {
    const ancestorIndex = this.log.indexOf(ancestorId, this.entryCount);
    const index = this.log.indexOf(entryId, this.entryCount);
    return (
      ancestorIndex !== undefined && index !== undefined && this.log.isAncestorOrSelf(ancestorIndex, index)
    );
  }

  /** This session's tree, to be grown by a batch of entries under check (the state is unchanged). */
  pathsForBatch(): EntryPaths {
    return new EntryPaths(
      (entryId) => this.log.indexOf(entryId, this.entryCount),
      this.log.ancestryOf(this.entryCount),
    );
  }

  /** The newest `custom` entry of `customType` in append order (any branch); undefined when none. */
  newestCustomEntry(customType: string): CustomEntry | undefined {
    const index = this.log.lastCustomIndex(customType, this.entryCount);
    const entry = index === undefined ? undefined : this.log.entryAt(index);
    return entry?.type === 'custom' ? entry : undefined;
  }

  /** The label in force for an entry: the last label entry for it wins, an empty one clears. */
  labelOf(targetId: string): string | undefined {
    const index = this.log.lastLabelIndex(targetId, this.entryCount);
    if (index === undefined) return undefined;
    const entry = this.log.entryAt(index);
    return entry.type === 'label' && entry.label ? entry.label : undefined;
  }

  labels(): ReadonlyMap<string, string> {
    const labels = new Map<string, string>();
    for (const targetId of this.log.labelTargets()) {
      const label = this.labelOf(targetId);
      if (label !== undefined) labels.set(targetId, label);
    }
    return labels;
  }

  /** Pruned by a `ToolOutputsPruned` event, or imported already pruned (`prunedAt` set). */
  isPruned(entryId: string): boolean {
    if (this.log.prunedResult(entryId, this.tick)) return true;
    const entry = this.getEntry(entryId);
    return (
      entry?.type === 'message' && entry.message.role === 'toolResult' && entry.message.prunedAt !== undefined
    );
  }

  /** Outputs pruned by events: entry id → when, and the tokens the original output had. */
  prunedResults(): ReadonlyMap<string, PrunedResult> {
    const pruned = new Map<string, PrunedResult>();
    for (const entryId of this.log.prunedEntryIds()) {
      const result = this.log.prunedResult(entryId, this.tick);
      if (result) pruned.set(entryId, result);
    }
    return pruned;
  }

  /**
   * Tokens saved by the pruning recorded because of the answer `answerEntryId` (before an
   * automatic compaction was considered); undefined when that answer caused none.
   */
  pruningSavedAfter(answerEntryId: string): number | undefined {
    return this.log.pruningSavedAfter(answerEntryId, this.tick);
  }

  getAttempt(attemptId: string): SessionAttempt | undefined {
    const started = this.log.attemptStart(attemptId, this.tick);
    if (!started) return undefined;
    const outcome = this.log.attemptOutcome(attemptId, this.tick) ?? null;
    if (started.type === 'CompactionStarted') {
      const continuation = this.log.continuation(attemptId, this.tick);
      return {
        kind: 'compaction',
        attemptId,
        started: started.data,
        outcome: outcome && isCompactionOutcome(outcome) ? outcome : null,
        continuation: continuation ? continuation.data : null,
      };
    }
    return {
      kind: 'branch_summary',
      attemptId,
      started: started.data,
      outcome: outcome && !isCompactionOutcome(outcome) ? outcome : null,
    };
  }

  /** Every attempt, in the order they started. */
  attempts(): readonly SessionAttempt[] {
    const attempts: SessionAttempt[] = [];
    for (const attemptId of this.log.attemptIds()) {
      const attempt = this.getAttempt(attemptId);
      if (attempt) attempts.push(attempt);
    }
    return attempts;
  }

  /** Attempts started and not yet ended. */
  openAttempts(): readonly SessionAttempt[] {
    return this.attempts().filter((attempt) => attempt.outcome === null);
  }

  /** The state after `event`; events that cannot apply (never produced by `decide`) are ignored. */
  static evolve(state: ActiveSessionState, event: SessionEvent): ActiveSessionState {
    if (event.type === 'LeafMoved') {
      const { header, entryCount, tick, log, lease } = state;
      return new ActiveSessionState(header, event.data.leafId, entryCount, tick, log, lease);
    }
    if (isLeaseEvent(event)) return state.withLease(leaseAfter(state.lease, event));
    if (event.type === 'SessionStarted') return state;
    const log = state.log.ownedBy(state.tick, state.entryCount);
    switch (event.type) {
      case 'EntryAppended':
        return log.appendEntry(event.data.entry)
          ? state.with(log, event.data.entry.id, state.entryCount + 1)
          : state;
      case 'ToolOutputsPruned':
        for (const result of event.data.results) {
          log.recordPruning(result.entryId, { prunedAt: event.data.prunedAt, tokens: result.tokens });
        }
        if (event.data.answerEntryId !== undefined) {
          log.recordPruningAfter(event.data.answerEntryId, event.data.tokensSaved);
        }
        break;
      case 'CompactionStarted':
      case 'BranchSummaryStarted':
        log.recordAttemptStart(event);
        break;
      case 'CompactionCompleted':
      case 'CompactionSkipped':
      case 'CompactionCancelled':
      case 'CompactionFailed':
      case 'BranchSummaryCompleted':
      case 'BranchSummarySkipped':
      case 'BranchSummaryCancelled':
      case 'BranchSummaryFailed':
        if (state.endsOpenAttempt(event)) log.recordAttemptOutcome(event);
        break;
      case 'ContinuationRequested':
        log.recordContinuation(event);
        break;
      default: {
        const unhandled: never = event;
        throw new Error(`unhandled session event ${JSON.stringify(unhandled)}`);
      }
    }
    return log.tick === state.tick ? state : state.with(log, state.leafId, state.entryCount);
  }

  private endsOpenAttempt(outcome: AttemptOutcome): boolean {
    const attempt = this.getAttempt(outcome.data.attemptId);
    return attempt !== undefined && attempt.outcome === null && attempt.kind === outcomeKind(outcome);
  }

  /** A successor after writing to `log`, which this state's successor now owns. */
  private with(log: SessionLog, leafId: string | null, entryCount: number): ActiveSessionState {
    return new ActiveSessionState(this.header, leafId, entryCount, log.tick, log, this.lease);
  }

  private withLease(lease: SessionLease | null): ActiveSessionState {
    if (lease === this.lease) return this;
    return new ActiveSessionState(this.header, this.leafId, this.entryCount, this.tick, this.log, lease);
  }
}

export type SessionState = EmptySessionState | ActiveSessionState;

function isLeaseEvent(event: SessionEvent): event is LeaseEvent {
  return (
    event.type === 'LeaseTaken' ||
    event.type === 'LeaseRenewed' ||
    event.type === 'LeaseReleased' ||
    event.type === 'LeaseExpired'
  );
}

/** The lease after one of its events; an event of another lease than the latest changes nothing. */
function leaseAfter(lease: SessionLease | null, event: LeaseEvent): SessionLease | null {
  if (event.type === 'LeaseTaken') {
    const { sequence, token, holder, expiresAt } = event.data;
    return { sequence, token, holder, expiresAt, released: false };
  }
  if (lease === null || lease.sequence !== event.data.sequence) return lease;
  switch (event.type) {
    case 'LeaseRenewed':
      return { ...lease, expiresAt: event.data.expiresAt };
    case 'LeaseReleased':
      return { ...lease, released: true };
    case 'LeaseExpired':
      return lease;
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled lease event ${JSON.stringify(unhandled)}`);
    }
  }
}

function isCompactionOutcome(outcome: AttemptOutcome): outcome is CompactionOutcome {
  return outcomeKind(outcome) === 'compaction';
}

function outcomeKind(outcome: AttemptOutcome): SessionAttempt['kind'] {
  switch (outcome.type) {
    case 'CompactionCompleted':
    case 'CompactionSkipped':
    case 'CompactionCancelled':
    case 'CompactionFailed':
      return 'compaction';
    case 'BranchSummaryCompleted':
    case 'BranchSummarySkipped':
    case 'BranchSummaryCancelled':
    case 'BranchSummaryFailed':
      return 'branch_summary';
    default: {
      const unhandled: never = outcome;
      throw new Error(`unhandled attempt outcome ${JSON.stringify(unhandled)}`);
    }
  }
}

export function initialState(): SessionState {
  return { status: 'empty' };
}

export function evolve(state: SessionState, event: SessionEvent): SessionState {
  switch (state.status) {
    case 'empty':
      return event.type === 'SessionStarted' ? ActiveSessionState.started(event.data.header) : state;
    case 'active':
      return ActiveSessionState.evolve(state, event);
    default: {
      const unhandled: never = state;
      throw new Error(`unhandled session state ${JSON.stringify(unhandled)}`);
    }
  }
}
