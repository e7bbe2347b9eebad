// Reads and writes session streams for every use case: a thin layer over the one generic
// command handler of @strata/event-store (read → fold → decide → append at the read revision →
// bounded retry on conflict). A use case hands it a plan: one decider command, several (decided
// in turn, appended as one batch), or a function of the current state that names them — so a
// retry after a conflict decides again on the fresh state (a compaction attaches under the leaf
// that is current when it is written, not the one it was prepared at). Folded sessions are
// cached per engine, so a command reads only the events appended since the previous one (the
// cache is always read forward from the store, so other engines writing the same store are seen).
// Reads of the current state (compaction and navigation) go through the same cache. A seeded
// write that was made before is reported with where it was made, and the events it wrote can be
// read back, so a use case can compare a repeated request with the first and answer as it did.
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  FoldedStreamCache,
  derivedEventId,
  foldStream,
  type FoldedStream,
  handleCommand,
  type CommandHandled,
  type Decider,
  type EarlierHandling,
  type EventStore,
  type StreamAppender,
} from '@strata/event-store';
import { createSealingAppender } from '@strata/integrity';
import { SessionNotFoundError, parseStoredSessionEvent } from '@strata/session-files';
import {
  SessionDomainError,
  conflict,
  decide,
  evolve,
  initialState,
  sessionStreamName,
  type ActiveSessionState,
  type SessionCommand,
  type SessionEvent,
  type SessionState,
} from '@strata/session';
import {
  DEFAULT_TENANT,
  TenantMismatchError,
  actorMetadataOf,
  tenantOfMetadata,
  type WriteContext,
} from '../shared/command-context';
import { CLOCK, EVENT_STORE } from '../shared/injection-tokens';
import { systemClock, type Clock } from '../shared/clock';
import { DEFAULT_MAX_SESSION_ENTRIES } from '../shared/session-size';

/** What to decide: one command, several in order, or a function of the state that names them. */
export type SessionPlan =
  SessionCommand | readonly SessionCommand[] | ((state: SessionState) => readonly SessionCommand[]);

function commandsOf(plan: SessionPlan, state: SessionState): readonly SessionCommand[] {
  if (typeof plan === 'function') return plan(state);
  return isCommandList(plan) ? plan : [plan];
}

function isCommandList(plan: SessionCommand | readonly SessionCommand[]): plan is readonly SessionCommand[] {
  return Array.isArray(plan);
}

/**
 * Decides each command on the state left by the previous ones; all events form one append. The
 * state is not evolved past the last command: the handler evolves it once more with the whole
 * batch, and evolving the newest state of a session log twice would make the second a copy.
 */
export const sessionPlanDecider: Decider<SessionState, SessionPlan, SessionEvent> = {
  decide(plan, state) {
    const events: SessionEvent[] = [];
    const commands = commandsOf(plan, state);
    let current = state;
    commands.forEach((command, index) => {
      const decided = decide(command, current);
      if (index < commands.length - 1) for (const event of decided) current = evolve(current, event);
      events.push(...decided);
    });
    return events;
  },
  evolve,
  initialState,
};

export type SessionWrite = CommandHandled<SessionEvent, SessionState>;

export interface SessionWriteOptions extends WriteContext {
  /** New event ids derive from it; a stream already holding its first id is left alone. */
  readonly idSeed?: string;
  /** Seeds the engine gave the same write before `idSeed` was scoped by session (stores written then). */
  readonly formerIdSeeds?: readonly string[];
  /** A digest of what the seeded write asks; recorded with it, and reported back on a repeat. */
  readonly requestDigest?: string;
  /** The writer's view: the stream's last revision must equal it (no retry when it does not). */
  readonly expectedRevision?: bigint;
  /**
   * More audit metadata of the new events (correlation and causation ids, the engine's id). The
   * actor and who it acts for come from the write context (`ENGINE_ACTOR` when it names none);
   * the tenant is sealed by `appenderFor`.
   */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

const clockLogger = new Logger('SessionStreams');

/**
 * The integrity seal on the engine's clock. It never stamps an event earlier than the one before
 * it in its stream: when the clock stands behind it (a step back of the system clock, another
 * engine's clock ahead), the batch is sealed at that event's time with the step in its metadata,
 * and the step is logged.
 */
function engineSealingAppender(clock: Clock): StreamAppender {
  return createSealingAppender(
    {},
    {
      now: () => new Date(clock.now()),
      onClockStep: (step) =>
        clockLogger.warn(
          `the clock stands ${step.stepMs} ms behind the last event of ${step.streamId}; ` +
            `the new events are recorded at its time, ${step.recordedAt}, with the step in their metadata (clockStepMs)`,
        ),
    },
  );
}

/**
 * The integrity layer's sealing appender, after two checks: the writer's revision, when it named
 * one, and the tenant. Every event gets the stream's tenant (from the last event read, so no
 * extra read), or for a new stream the writer's (`default` when none), before it is sealed — the
 * tenant is sealed once, with the event. A writer for another tenant than the stream's is refused.
 */
function appenderFor(options: SessionWriteOptions, sealingAppender: StreamAppender): StreamAppender {
  const { expectedRevision } = options;
  return (request) => {
    const actual = request.lastEvent?.revision ?? null;
    if (expectedRevision !== undefined && actual !== expectedRevision) {
      throw conflict(`session stream is at revision ${actual ?? 'none'}, not ${expectedRevision}`, {
        expectedRevision: expectedRevision.toString(),
        revision: actual === null ? null : actual.toString(),
      });
    }
    const streamTenant =
      request.lastEvent === undefined ? undefined : tenantOfMetadata(request.lastEvent.metadata);
    if (streamTenant !== undefined && options.tenant !== undefined && options.tenant !== streamTenant) {
      throw new TenantMismatchError(request.streamId, streamTenant, options.tenant);
    }
    const tenant = streamTenant ?? options.tenant ?? DEFAULT_TENANT;
    const events = request.events.map((event) => ({ ...event, metadata: { ...event.metadata, tenant } }));
    return sealingAppender({ ...request, events });
  };
}

/** How much of the folded sessions `SessionStreams` keeps between commands. */
export interface SessionFoldBounds {
  /** Sessions kept (the least recently written goes first); 0 keeps none. */
  readonly maxSessions: number;
  /** Entries of all kept sessions together. */
  readonly maxEntries: number;
  /** The heaviest one session may grow (`STRATA_MAX_SESSION_ENTRIES`); appends past it are refused. */
  readonly maxSessionEntries: number;
}

export const DEFAULT_SESSION_FOLD_BOUNDS: SessionFoldBounds = {
  maxSessions: 1_000,
  maxEntries: 250_000,
  maxSessionEntries: DEFAULT_MAX_SESSION_ENTRIES,
};

/** The `SessionFoldBounds` of the engine. */
export const SESSION_FOLD_BOUNDS = Symbol('SESSION_FOLD_BOUNDS');

/** A fold's weight in the bound of entries: large entries count once per 2 kB of their text. */
function weightOf(state: SessionState): number {
  return state.status === 'active' ? state.weight : 0;
}

@Injectable()
export class SessionStreams {
  private readonly folded: FoldedStreamCache<SessionState> | undefined;
  private readonly sealingAppender: StreamAppender;
  /** The heaviest one session may grow (`SessionFoldBounds.maxSessionEntries`). */
  readonly maxSessionEntries: number;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Optional() @Inject(SESSION_FOLD_BOUNDS) given: Partial<SessionFoldBounds> = {},
    @Optional() @Inject(CLOCK) clock: Clock = systemClock,
  ) {
    this.sealingAppender = engineSealingAppender(clock);
    const bounds = { ...DEFAULT_SESSION_FOLD_BOUNDS, ...given };
    this.maxSessionEntries = bounds.maxSessionEntries;
    this.folded =
      bounds.maxSessions === 0
        ? undefined
        : new FoldedStreamCache({
            maxStreams: bounds.maxSessions,
            maxWeight: bounds.maxEntries,
            weightOf,
          });
  }

  /** Drops the cached fold of a session (its stream was erased). */
  forget(sessionId: string): void {
    this.folded?.forget(sessionStreamName(sessionId));
  }

  /**
   * The session's current state, read from the store (forward from the cached fold when there
   * is one, as commands are); throws `SessionNotFoundError` when it was never started.
   */
  async state(sessionId: string): Promise<ActiveSessionState> {
    const { state } = await this.fold(sessionId);
    if (state.status !== 'active') throw new SessionNotFoundError(sessionId);
    return state;
  }

  /** The session's stream folded to its end, forward from the cached fold when there is one. */
  private fold(sessionId: string): Promise<FoldedStream<SessionState>> {
    return foldStream({
      store: this.store,
      streamId: sessionStreamName(sessionId),
      decider: sessionPlanDecider,
      parseEvent: parseStoredSessionEvent,
      lookFor: [],
      cache: this.folded,
    });
  }

  /**
   * Decides `plan` on the session's current state and appends the events. Throws what the
   * decider throws (`SessionDomainError`; a leaf conflict with the session's current leaf and
   * revision), and `ConcurrencyError` when every retry met a writer.
   */
  async execute(
    sessionId: string,
    plan: SessionPlan,
    options: SessionWriteOptions = {},
  ): Promise<SessionWrite> {
    try {
      return await this.handle(sessionId, plan, options);
    } catch (error) {
      if (!(error instanceof SessionDomainError) || error.details.reason !== 'leaf_conflict') throw error;
      throw await this.withCurrentRevision(sessionId, error);
    }
  }

  /**
   * The leaf conflict with the leaf and revision the stream holds now, read together (from the
   * cached fold forward), so a writer can retry from exactly that point.
   */
  private async withCurrentRevision(
    sessionId: string,
    error: SessionDomainError,
  ): Promise<SessionDomainError> {
    const { state, lastEvent } = await this.fold(sessionId);
    const currentLeafId = state.status === 'active' ? state.leafId : null;
    const currentRevision = lastEvent === undefined ? null : lastEvent.revision.toString();
    return new SessionDomainError(error.code, error.message, {
      ...error.details,
      currentLeafId,
      currentRevision,
    });
  }

  private handle(sessionId: string, plan: SessionPlan, options: SessionWriteOptions): Promise<SessionWrite> {
    return handleCommand(this.store, sessionStreamName(sessionId), plan, sessionPlanDecider, {
      parseEvent: parseStoredSessionEvent,
      ...(options.idSeed !== undefined ? { idSeed: options.idSeed } : {}),
      ...(options.formerIdSeeds !== undefined ? { formerIdSeeds: options.formerIdSeeds } : {}),
      ...(options.requestDigest !== undefined ? { requestDigest: options.requestDigest } : {}),
      metadata: { ...options.metadata, ...actorMetadataOf(options) },
      appender: appenderFor(options, this.sealingAppender),
      // the sealing appender passes the remembered head on to the store, which checks it
      ...(this.folded !== undefined ? { cache: this.folded, trustWrittenHead: true } : {}),
    });
  }

  /** How the write seeded with `idSeed` (or a former seed) was made; undefined when it was not. */
  async earlierWrite(
    sessionId: string,
    options: Pick<SessionWriteOptions, 'idSeed' | 'formerIdSeeds'>,
  ): Promise<EarlierHandling | undefined> {
    const probe = await this.execute(sessionId, () => [], options);
    return probe.earlier;
  }

  /** The metadata of the session's event at `revision`; undefined when there is none. */
  async metadataAt(
    sessionId: string,
    revision: bigint,
  ): Promise<Readonly<Record<string, unknown>> | undefined> {
    for await (const recorded of this.store.readStream(sessionStreamName(sessionId), {
      fromRevision: revision,
      maxCount: 1,
    })) {
      return recorded.revision === revision ? recorded.metadata : undefined;
    }
    return undefined;
  }

  /** The global position of the session's last event; throws `SessionNotFoundError` for an empty stream. */
  async headPosition(sessionId: string): Promise<bigint> {
    for await (const last of this.store.readStream(sessionStreamName(sessionId), {
      direction: 'backwards',
      fromRevision: 'end',
      maxCount: 1,
    })) {
      return last.position;
    }
    throw new SessionNotFoundError(sessionId);
  }

  /** The global position of the session's last event of one of `types`; null when it has none. */
  async lastPositionOf(sessionId: string, types: readonly string[]): Promise<bigint | null> {
    for await (const recorded of this.store.readStream(sessionStreamName(sessionId), {
      direction: 'backwards',
      fromRevision: 'end',
    })) {
      if (types.includes(recorded.type)) return recorded.position;
    }
    return null;
  }

  /** The events an earlier seeded write appended, in order, each with its revision. */
  async eventsOf(sessionId: string, earlier: EarlierHandling): Promise<readonly WrittenEvent[]> {
    const written: WrittenEvent[] = [];
    for await (const recorded of this.store.readStream(sessionStreamName(sessionId), {
      fromRevision: earlier.revision,
    })) {
      if (recorded.id !== derivedEventId(earlier.idSeed, written.length)) break;
      written.push({ revision: recorded.revision, event: parseStoredSessionEvent(recorded) });
    }
    return written;
  }
}

/** An event of the session as stored, with its revision. */
export interface WrittenEvent {
  readonly revision: bigint;
  readonly event: SessionEvent;
}
