// The context projection (DESIGN.md decision 6): live sessions held in memory as SessionViews,
// updated incrementally from the runner's events and, at each read, from the events of the
// stream the runner has not delivered yet (so a read waits for no other session's work),
// hydrated from their stream on a miss, and
// bounded by a least-recently-used limit on sessions and on entries (an evicted session is
// hydrated again when next asked for). It answers the context at the current leaf from a
// running structure, at any other leaf with the pure builder and cached token counts, and as
// of any global position by reading the stream up to it. Token counts missing for a read (a
// session just imported or hydrated, an entry whose text was too long to count when it arrived)
// are counted before it in slices of about `WORK_SLICE_MS`, letting the event loop serve other
// requests between slices: a first count of a pi fixture takes seconds with o200k, and held the
// whole engine that long. A prepared counter (@strata/tokenizer) also cuts the count of one long
// text into slices; any other counter counts an entry at once.
// With a TokenCountStorage, the counts it makes are saved behind its work and a hydration takes
// the stored counts of the session's events (issue 22 item 4: a restart does not count again).
// With a SessionSnapshotStorage, a hydration starts from the session's snapshot when one matches
// the stream, and reads only the events after it (snapshot-saver.ts says when they are taken).
// The limit is a Map in use order, not lru-cache: a held view grows in place as events arrive
// (lru-cache weighs an entry once, when it is set), and the view growing is never the one evicted.
import { eventLoopSlice, type EventStore, type RecordedEvent } from '@strata/event-store';
import {
  SnapshotSaver,
  type IgnoredSnapshotReport,
  type SnapshotLimits,
  type SnapshotSaverStats,
} from './snapshot-saver';
import type { SessionSnapshotStorage } from './snapshot-storage';
import { hydrateFromSnapshot } from './snapshot-hydration';
import { SessionNotFoundError } from '@strata/session-files';
import { sessionEventTypes, sessionStreamName, type SessionEntry, type TokenCounter } from '@strata/session';
import type { Projection } from '../runner/projection';
import { WorkSlices } from './work-slices';
import { TokenCountSaver, type TokenCountSaverStats } from './token-count-saver';
import { storedCountsKey, type TokenCountStorage } from './token-count-storage';
import { readProjectedEvent, type InvalidEventReport, type ProjectedEvent } from '../runner/projected-event';
import { SessionSetAsideError } from '../runner/session-set-aside';
import {
  SessionView,
  type ApplyOutcome,
  type ProjectedContext,
  type SessionTreeView,
  type SessionViewMetrics,
} from './session-view';

export const CONTEXT_PROJECTION_NAME = 'context';
export const DEFAULT_MAX_CACHED_SESSIONS = 1_000;
/** About 600 MB of heap at the 2.5 kB per entry `npm run bench` measures (projection suite). */
export const DEFAULT_MAX_CACHED_ENTRIES = 250_000;

/** Counts `entries` of `view`, yielding to the event loop between slices (and within long texts). */
async function countInSlices(view: SessionView, entries: readonly SessionEntry[]): Promise<void> {
  const slices = new WorkSlices();
  const prepared = view.preparedCounter;
  for (const entry of entries) {
    if (prepared !== undefined) {
      const texts = view.textsToCount(entry);
      if (!prepared.isReady(texts)) await prepared.countAhead(texts, slices);
    }
    view.countEntry(entry);
    if (slices.due()) await slices.yield();
  }
}

export interface ContextProjectionOptions {
  readonly store: EventStore;
  readonly tokenCounter: TokenCounter;
  /** At most this many sessions stay in memory. 1,000 by default. */
  readonly maxSessions?: number;
  /**
   * At most this many entries (summed over the sessions held) stay in memory, a large entry
   * counting once per 2 kB of its text (`entryWeight`); the session in use is kept even when it
   * alone is larger. `DEFAULT_MAX_CACHED_ENTRIES` by default.
   */
  readonly maxEntries?: number;
  /** Where token counts are kept between hydrations (none: a hydration counts every entry it needs). */
  readonly tokenCounts?: TokenCountStorage;
  /** Where session snapshots are kept (none: a hydration reads every event of the session). */
  readonly snapshots?: SessionSnapshotStorage;
  /** When sessions are snapshotted (snapshot-saver.ts has the defaults). */
  readonly snapshotLimits?: SnapshotLimits;
  /** A stored snapshot was not used (unreadable, another format, not of the stream as it is). */
  readonly onSnapshotIgnored?: (report: IgnoredSnapshotReport) => void;
  /** Events of a type no session event has (skipped while hydrating). */
  readonly onInvalidEvent?: (report: InvalidEventReport) => void;
}

/** Restricts a question to one tenant: another tenant's session is not found. */
export interface TenantScope {
  readonly tenant: string;
}

export interface ContextCacheStats {
  readonly sessions: number;
  readonly entries: number;
  /** The entries held, weighed as the bound weighs them (`entryWeight`). */
  readonly weight: number;
  readonly hits: number;
  readonly misses: number;
  readonly hydrations: number;
  readonly evictions: number;
  /** Times the context of a current leaf was built from its path instead of extended. */
  readonly currentLeafBuilds: number;
  /** The stored token counts' saves (absent without a TokenCountStorage). */
  readonly storedCounts?: TokenCountSaverStats;
  /** The session snapshots taken and used (absent without a SessionSnapshotStorage). */
  readonly snapshots?: SnapshotSaverStats;
}

function inScope(view: SessionView, scope: TenantScope | undefined): SessionView {
  if (scope !== undefined && view.tenant !== scope.tenant) throw new SessionNotFoundError(view.sessionId);
  return view;
}

export class ContextProjection implements Projection {
  readonly name = CONTEXT_PROJECTION_NAME;
  readonly durability = 'volatile' as const;
  readonly eventTypes = sessionEventTypes;
  private readonly maxSessions: number;
  private readonly maxEntries: number;
  /** Least recently used first (a Map keeps insertion order; a use re-inserts). */
  private readonly sessions = new Map<string, SessionView>();
  private readonly hydrating = new Map<string, Promise<SessionView>>();
  /** Events that arrived for a session while it was being hydrated. */
  private readonly arrivals = new Map<string, ProjectedEvent[]>();
  /** The summed `weight` of the views held (large entries count once per 2 kB of text). */
  private cachedWeight = 0;
  private hits = 0;
  private misses = 0;
  private hydrations = 0;
  private evictions = 0;
  private readonly viewMetrics: SessionViewMetrics = { currentLeafBuilds: 0 };
  private readonly countSaver: TokenCountSaver | undefined;
  private readonly snapshotSaver: SnapshotSaver | undefined;

  constructor(private readonly options: ContextProjectionOptions) {
    this.countSaver =
      options.tokenCounts === undefined
        ? undefined
        : new TokenCountSaver(options.tokenCounts, options.tokenCounter.name);
    this.snapshotSaver =
      options.snapshots === undefined
        ? undefined
        : new SnapshotSaver(
            options.snapshots,
            storedCountsKey(options.tokenCounter.name),
            () => this.sessions.values(),
            {
              ...options.snapshotLimits,
              ...(options.onSnapshotIgnored !== undefined ? { onIgnored: options.onSnapshotIgnored } : {}),
            },
          );
    this.maxSessions = options.maxSessions ?? DEFAULT_MAX_CACHED_SESSIONS;
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_CACHED_ENTRIES;
    if (!(this.maxSessions >= 1) || !(this.maxEntries >= 1)) {
      throw new Error('the context projection must be allowed at least one session and one entry');
    }
  }

  accepts(sessionId: string): boolean {
    return this.sessions.has(sessionId) || this.arrivals.has(sessionId);
  }

  apply(event: ProjectedEvent): Promise<void> {
    const view = this.sessions.get(event.sessionId);
    if (view !== undefined) {
      const before = view.weight;
      if (view.apply(event) === 'gap') this.evict(event.sessionId);
      else this.afterGrowth(view, before);
      this.saveCounts(view);
    } else {
      this.arrivals.get(event.sessionId)?.push(event);
    }
    return Promise.resolve();
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  /** The runner set the session aside: drop it (a read hydrates it again, or answers why not). */
  forget(sessionId: string): void {
    this.evict(sessionId);
  }

  /** The session was erased: drop it, and what waits to be applied to it. */
  async erase(sessionId: string): Promise<void> {
    this.evict(sessionId);
    this.arrivals.get(sessionId)?.splice(0);
    await this.snapshotSaver?.forget(sessionId);
    await this.countSaver?.forget(sessionId);
  }

  /** Snapshots the sessions held that are behind, saves the token counts that wait, and saves no more (the engine stops). */
  async close(): Promise<void> {
    await this.snapshotSaver?.close();
    await this.countSaver?.close();
  }

  /**
   * Forgets every session held (they hydrate again on demand) and every snapshot. Stored token
   * counts stay: each is bound to the event it counts, so no rebuild can make one wrong.
   */
  async reset(): Promise<void> {
    for (const sessionId of [...this.sessions.keys()]) this.evict(sessionId);
    await this.snapshotSaver?.reset();
  }

  /**
   * The context at `leafId` (the current leaf when undefined; null gives the empty context).
   * Throws `SessionNotFoundError` (also for another tenant's session) or `UnknownEntryError`.
   */
  async contextAt(sessionId: string, leafId?: string | null, scope?: TenantScope): Promise<ProjectedContext> {
    const view = inScope(await this.view(sessionId), scope);
    const uncounted = view.uncountedEntries(leafId);
    if (uncounted.length > 0) await countInSlices(view, uncounted);
    const context = view.contextAt(leafId);
    this.saveCounts(view);
    return context;
  }

  /**
   * The context as it was once every event at or below `position` had been recorded: the
   * stream read up to there, at the leaf of that moment (or `leafId`). Nothing is cached.
   */
  async contextAsOf(
    sessionId: string,
    position: bigint,
    leafId?: string | null,
    scope?: TenantScope,
  ): Promise<ProjectedContext> {
    const view = inScope(await this.readStream(sessionId, position), scope);
    const uncounted = view.uncountedEntries(leafId);
    if (uncounted.length > 0) await countInSlices(view, uncounted);
    const context = view.contextAt(leafId);
    this.saveCounts(view);
    return context;
  }

  /** The session's tree, entries, labels and current leaf. Throws `SessionNotFoundError`. */
  async sessionTree(sessionId: string, scope?: TenantScope): Promise<SessionTreeView> {
    const view = inScope(await this.view(sessionId), scope);
    return view.tree();
  }

  /** Drops a session from memory (for instance after its stream was erased). */
  evict(sessionId: string): void {
    const view = this.sessions.get(sessionId);
    if (view === undefined) return;
    this.sessions.delete(sessionId);
    this.cachedWeight -= view.weight;
    this.evictions += 1;
  }

  stats(): ContextCacheStats {
    return {
      sessions: this.sessions.size,
      entries: [...this.sessions.values()].reduce((total, held) => total + held.entryCount, 0),
      weight: this.cachedWeight,
      hits: this.hits,
      misses: this.misses,
      hydrations: this.hydrations,
      evictions: this.evictions,
      currentLeafBuilds: this.viewMetrics.currentLeafBuilds,
      ...(this.countSaver !== undefined ? { storedCounts: this.countSaver.stats() } : {}),
      ...(this.snapshotSaver !== undefined ? { snapshots: this.snapshotSaver.stats() } : {}),
    };
  }

  /**
   * The held view (marked as just used) brought up to the stream's last event, or one hydrated
   * from the stream: a read never waits for the runner, so another session's burst of events
   * cannot delay it. The runner's later delivery of the same events changes nothing.
   */
  private async view(sessionId: string): Promise<SessionView> {
    const cached = this.sessions.get(sessionId);
    if (cached === undefined) {
      this.misses += 1;
      let pending = this.hydrating.get(sessionId);
      if (pending === undefined) {
        pending = this.hydrate(sessionId).finally(() => this.hydrating.delete(sessionId));
        this.hydrating.set(sessionId, pending);
      }
      return pending;
    }
    this.hits += 1;
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, cached);
    const before = cached.weight;
    for await (const recorded of this.options.store.readStream(sessionStreamName(sessionId), {
      fromRevision: cached.revision + 1n,
    })) {
      if (eventLoopSlice.isDue) await eventLoopSlice.yield();
      if (this.applyRecorded(cached, recorded) === 'gap') {
        this.evict(sessionId);
        return this.view(sessionId);
      }
    }
    if (this.sessions.get(sessionId) === cached) this.afterGrowth(cached, before);
    return cached;
  }

  private async hydrate(sessionId: string): Promise<SessionView> {
    const arrivals: ProjectedEvent[] = [];
    this.arrivals.set(sessionId, arrivals);
    try {
      const fromSnapshot =
        this.snapshotSaver === undefined
          ? undefined
          : await hydrateFromSnapshot(sessionId, {
              store: this.options.store,
              snapshots: this.snapshotSaver,
              countSaver: this.countSaver,
              newView: () => this.newView(sessionId),
              applyRecorded: (view, recorded) => this.applyRecorded(view, recorded),
            });
      const view = fromSnapshot ?? (await this.readStream(sessionId, undefined));
      this.hydrations += 1;
      const inOrder = arrivals.every((event) => view.apply(event) !== 'gap');
      if (inOrder) {
        this.sessions.set(sessionId, view);
        this.afterGrowth(view, 0);
        this.snapshotSaver?.start();
      }
      return view;
    } finally {
      this.arrivals.delete(sessionId);
    }
  }

  /** A view of the stream's events up to `lastPosition` (all when undefined). */
  private async readStream(sessionId: string, lastPosition: bigint | undefined): Promise<SessionView> {
    const saver = this.countSaver;
    const view = this.newView(sessionId);
    if (saver !== undefined) view.useStoredCounts(await saver.load(sessionId));
    for await (const recorded of this.options.store.readStream(sessionStreamName(sessionId))) {
      if (lastPosition !== undefined && recorded.position > lastPosition) break;
      // a session of megabyte events is read on the event loop: it has its turn between them
      if (eventLoopSlice.isDue) await eventLoopSlice.yield();
      this.applyRecorded(view, recorded);
    }
    view.useStoredCounts(undefined);
    if (!view.isStarted) throw new SessionNotFoundError(sessionId);
    return view;
  }

  private newView(sessionId: string): SessionView {
    return new SessionView(
      sessionId,
      this.options.tokenCounter,
      this.viewMetrics,
      this.countSaver !== undefined,
    );
  }

  /** Queues the counts the view made for storage. */
  private saveCounts(view: SessionView): void {
    this.countSaver?.collect(view.sessionId, view.takeFreshCounts());
  }

  /**
   * Applies one event read from the stream. An event of a known type whose data does not
   * validate sets the session aside (`SessionSetAsideError`, and a held view is dropped): a
   * context without it would be wrong. Events of unknown types are reported and stepped over.
   */
  private applyRecorded(view: SessionView, recorded: RecordedEvent): ApplyOutcome {
    const result = readProjectedEvent(recorded);
    if (result.kind === 'valid') return view.apply(result.event);
    if (result.report.reason === 'invalid_data') {
      this.evict(view.sessionId);
      throw new SessionSetAsideError(view.sessionId, {
        projection: this.name,
        eventId: recorded.id,
        eventType: recorded.type,
        position: recorded.position,
        reason: `the event cannot be read: ${result.report.reason}: ${result.report.detail}`,
      });
    }
    this.options.onInvalidEvent?.(result.report);
    view.skip(recorded.revision, recorded.position, recorded.id);
    return 'applied';
  }

  /** Accounts for the weight a held view gained, then evicts the least recently used beyond the limits. */
  private afterGrowth(view: SessionView, weightBefore: number): void {
    this.cachedWeight += view.weight - weightBefore;
    for (const [sessionId] of this.sessions) {
      if (this.sessions.size <= this.maxSessions && this.cachedWeight <= this.maxEntries) return;
      if (sessionId === view.sessionId) continue;
      const evicted = this.sessions.get(sessionId);
      this.evict(sessionId);
      if (evicted !== undefined) this.snapshotSaver?.evicted(evicted);
    }
  }
}
