// Takes and keeps the context projection's session snapshots (session-snapshot.ts) behind its
// work, never on the path of an append or a read. A sweep every `SNAPSHOT_SWEEP_MS` queues the
// held sessions that did not change since the previous sweep (idle) and have none or one at
// least `IDLE_SNAPSHOT_EVENTS` events behind (so that a session written to every few seconds
// is not written out whole at every pause), and those `SNAPSHOT_EVERY_EVENTS` events ahead of
// theirs. A session evicted from memory is queued as it goes, and closing queues every held
// session whose snapshot is behind at all (within `CLOSE_BUDGET_MS` of work). Queued sessions
// are encoded and written one at a time, each in a turn of its own; at most
// `MAX_QUEUED_SNAPSHOTS` sessions weighing `MAX_QUEUED_WEIGHT` wait (an evicted session is held
// until written). Only sessions of at least `MIN_SNAPSHOT_ENTRIES` entries and at most
// `MAX_SNAPSHOT_WEIGHT` are snapshotted, and a text over `MAX_SNAPSHOT_CHARACTERS` is dropped.
// Loading reads and checks a snapshot; one that cannot be used is reported (`onIgnored`) and
// the caller hydrates from the events. A failed load or save costs a hydration, never an answer.
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  MAX_SNAPSHOT_CHARACTERS,
  MAX_SNAPSHOT_WEIGHT,
  MIN_SNAPSHOT_ENTRIES,
  SESSION_SNAPSHOT_FORMAT,
  decodeSessionSnapshot,
  encodeSessionSnapshot,
  type SessionSnapshotState,
} from './session-snapshot';
import type { SessionSnapshotStorage } from './snapshot-storage';
import type { SessionView } from './session-view';

export const SNAPSHOT_SWEEP_MS = 5_000;
export const SNAPSHOT_EVERY_EVENTS = 1_000;
export const IDLE_SNAPSHOT_EVENTS = 50;
export const CLOSE_BUDGET_MS = 1_000;
/** At most this many sessions wait to be snapshotted; more are left for a later sweep. */
export const MAX_QUEUED_SNAPSHOTS = 64;
/** At most this much weight (`entryWeight`) waits in the queue: twice the largest snapshot. */
export const MAX_QUEUED_WEIGHT = 2 * MAX_SNAPSHOT_WEIGHT;

/** A stored snapshot that was not used, and why. */
export interface IgnoredSnapshotReport {
  readonly sessionId: string;
  readonly reason: string;
}

export interface SnapshotSaverStats {
  readonly saved: number;
  /** Snapshots loaded and used by a hydration. */
  readonly used: number;
  /** Snapshots found and not used (unreadable, another format, behind an erasure). */
  readonly ignored: number;
  /** Sessions too large to snapshot, when they were due. */
  readonly tooLarge: number;
  readonly failures: number;
}

/** When sessions are snapshotted (the defaults above when absent). */
export interface SnapshotLimits {
  readonly sweepMs?: number;
  readonly everyEvents?: number;
  readonly idleEvents?: number;
  readonly minEntries?: number;
  readonly maxWeight?: number;
}

export interface SnapshotSaverOptions extends SnapshotLimits {
  readonly onIgnored?: (report: IgnoredSnapshotReport) => void;
}

export class SnapshotSaver {
  /** The revision of the snapshot kept (stored or loaded) of each session known to have one. */
  private readonly keptRevisions = new Map<string, bigint>();
  /** The revision each held session had at the previous sweep. */
  private readonly sweptRevisions = new Map<string, bigint>();
  private readonly queue = new Map<string, SessionView>();
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private saved = 0;
  private used = 0;
  private ignored = 0;
  private tooLarge = 0;
  private failures = 0;

  constructor(
    private readonly storage: SessionSnapshotStorage,
    private readonly counterKey: string,
    private readonly held: () => Iterable<SessionView>,
    private readonly options: SnapshotSaverOptions = {},
  ) {}

  /** Starts the sweeps (once; they stop at `close`). */
  start(): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = setInterval(() => this.sweep(), this.options.sweepMs ?? SNAPSHOT_SWEEP_MS);
    this.timer.unref();
  }

  /** The session's usable snapshot, or undefined (none, or one reported as ignored). */
  async load(sessionId: string): Promise<SessionSnapshotState | undefined> {
    let row;
    try {
      row = await this.storage.load(sessionId);
    } catch (error) {
      this.failures += 1;
      this.ignore(
        sessionId,
        `the snapshot could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
    if (row === undefined) return undefined;
    const decoded = decodeSessionSnapshot(row, sessionId, this.counterKey);
    if (decoded.kind === 'ignored') {
      this.ignore(sessionId, decoded.reason);
      return undefined;
    }
    return decoded.state;
  }

  /** A loaded snapshot was used (the view holds it and what followed). */
  usedSnapshot(state: SessionSnapshotState): void {
    this.used += 1;
    this.keptRevisions.set(state.sessionId, state.revision);
  }

  /** A loaded snapshot did not match the stream (erased, or written again): reported, not used. */
  ignore(sessionId: string, reason: string): void {
    this.ignored += 1;
    this.keptRevisions.delete(sessionId);
    this.options.onIgnored?.({ sessionId, reason });
  }

  /** The session leaves memory: its snapshot is taken now if it is due. */
  evicted(view: SessionView): void {
    this.sweptRevisions.delete(view.sessionId);
    if (!this.isBehind(view)) return;
    this.enqueue(view);
    this.drain();
  }

  /** Queues the held sessions that are idle or far ahead of their snapshot, and writes them. */
  sweep(): void {
    const every = BigInt(this.options.everyEvents ?? SNAPSHOT_EVERY_EVENTS);
    const afterIdle = BigInt(this.options.idleEvents ?? IDLE_SNAPSHOT_EVENTS);
    const swept = new Map<string, bigint>();
    for (const view of this.held()) {
      swept.set(view.sessionId, view.revision);
      if (!this.isBehind(view)) continue;
      const idle = this.sweptRevisions.get(view.sessionId) === view.revision;
      const kept = this.keptRevisions.get(view.sessionId);
      const ahead = view.revision - (kept ?? -1n);
      if (ahead >= every || (idle && (kept === undefined || ahead >= afterIdle))) this.enqueue(view);
    }
    this.sweptRevisions.clear();
    for (const [sessionId, revision] of swept) this.sweptRevisions.set(sessionId, revision);
    this.drain();
  }

  /** The session was erased: nothing of it is written again and its snapshot is deleted. */
  async forget(sessionId: string): Promise<void> {
    this.queue.delete(sessionId);
    this.keptRevisions.delete(sessionId);
    this.sweptRevisions.delete(sessionId);
    await this.writing;
    this.keptRevisions.delete(sessionId);
    await this.storage.forgetSession(sessionId);
  }

  /** The projection is rebuilt: every snapshot is deleted. */
  async reset(): Promise<void> {
    this.queue.clear();
    this.keptRevisions.clear();
    this.sweptRevisions.clear();
    await this.writing;
    await this.storage.clear();
  }

  /** Snapshots the held sessions that are behind (within the close budget), then takes no more. */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    for (const view of this.held()) if (this.isBehind(view)) this.enqueue(view);
    this.closed = true;
    await this.writing;
    await this.writeQueued(performance.now() + CLOSE_BUDGET_MS);
    this.queue.clear();
  }

  /** Resolves once the snapshots queued so far are written (or failed). */
  async settled(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  stats(): SnapshotSaverStats {
    return {
      saved: this.saved,
      used: this.used,
      ignored: this.ignored,
      tooLarge: this.tooLarge,
      failures: this.failures,
    };
  }

  /** Whether the view is worth a snapshot and its kept one (if any) is older. */
  private isBehind(view: SessionView): boolean {
    return (
      view.isStarted &&
      view.entryCount >= (this.options.minEntries ?? MIN_SNAPSHOT_ENTRIES) &&
      view.revision !== this.keptRevisions.get(view.sessionId)
    );
  }

  private enqueue(view: SessionView): void {
    if (view.weight > (this.options.maxWeight ?? MAX_SNAPSHOT_WEIGHT)) {
      this.tooLarge += 1;
      return;
    }
    if (this.queue.has(view.sessionId)) return;
    let queuedWeight = view.weight;
    for (const queued of this.queue.values()) queuedWeight += queued.weight;
    if (this.queue.size >= MAX_QUEUED_SNAPSHOTS || queuedWeight > MAX_QUEUED_WEIGHT) return;
    this.queue.set(view.sessionId, view);
  }

  private drain(): void {
    if (this.writing !== undefined || this.queue.size === 0 || this.closed) return;
    this.writing = this.writeQueued(Number.POSITIVE_INFINITY).finally(() => {
      this.writing = undefined;
    });
  }

  /** Writes the queued snapshots one at a time, each in a turn of its own, until `deadline`. */
  private async writeQueued(deadline: number): Promise<void> {
    for (const [sessionId, view] of this.queue) {
      if (performance.now() > deadline) return;
      this.queue.delete(sessionId);
      await nextTurn();
      const state = view.snapshotState(this.counterKey);
      if (state === undefined || state.revision === this.keptRevisions.get(sessionId)) continue;
      const body = await encodeSessionSnapshot(state);
      if (body.length > MAX_SNAPSHOT_CHARACTERS) {
        this.tooLarge += 1;
        continue;
      }
      try {
        await this.storage.save({
          sessionId,
          format: SESSION_SNAPSHOT_FORMAT,
          position: state.position,
          body,
        });
        this.saved += 1;
        this.keptRevisions.set(sessionId, state.revision);
      } catch {
        this.failures += 1;
      }
    }
  }
}
