// Reading a session back from its stream `session-<id>`: every event is checked against the
// decider's schemas (events read from a store are a trust boundary) and folded with `evolve`.
import {
  evolve,
  initialState,
  sessionEventSchema,
  sessionStreamName,
  type ActiveSessionState,
  type PrunedResult,
  type SessionEntry,
  type SessionEvent,
  type SessionHeader,
  type SessionState,
} from '@strata/session';
import type { EventStore, RecordedEvent } from '@strata/event-store';
import { InvalidStoredEventError, SessionNotFoundError } from './session-store-errors';

export interface LoadedSession {
  readonly sessionId: string;
  readonly streamId: string;
  readonly header: SessionHeader;
  /** Every entry, in append order. */
  readonly entries: readonly SessionEntry[];
  /** The folded decider state. */
  readonly state: ActiveSessionState;
  /** The current leaf: the last appended entry, or where the last `LeafMoved` put it. */
  readonly leafId: string | null;
  /** Tool outputs pruned by `ToolOutputsPruned` events (the original output stays in the entries). */
  readonly prunedResults: ReadonlyMap<string, PrunedResult>;
  /** The revision of the stream's last event. */
  readonly revision: bigint;
  readonly eventCount: number;
}

/**
 * Checks a recorded event of a session stream against the decider's schemas and returns it as
 * a session event; throws `InvalidStoredEventError` naming it. The checked value itself is
 * returned (the schemas neither default nor transform), so entries keep their key order and
 * export byte for byte as they were imported.
 */
export function parseStoredSessionEvent(recorded: RecordedEvent): SessionEvent {
  const candidate = { type: recorded.type, data: recorded.data };
  const result = sessionEventSchema.safeParse(candidate);
  if (result.success) return candidate as SessionEvent;
  const [first] = result.error.issues;
  const location = first && first.path.length > 0 ? first.path.map(String).join('.') : '(root)';
  const reason = `${first?.message ?? 'invalid'} at ${location}`;
  throw new InvalidStoredEventError(recorded.streamId, recorded.revision, recorded.id, reason);
}

/** Loads a session; throws `SessionNotFoundError` when its stream is empty or never started it. */
export async function loadSession(store: EventStore, sessionId: string): Promise<LoadedSession> {
  const streamId = sessionStreamName(sessionId);
  let state: SessionState = initialState();
  let last: RecordedEvent | undefined;
  let eventCount = 0;
  for await (const recorded of store.readStream(streamId)) {
    state = evolve(state, parseStoredSessionEvent(recorded));
    last = recorded;
    eventCount += 1;
  }
  if (state.status !== 'active' || last === undefined) throw new SessionNotFoundError(sessionId);
  return {
    sessionId,
    streamId,
    header: state.header,
    entries: state.entries(),
    state,
    leafId: state.leafId,
    prunedResults: state.prunedResults(),
    revision: last.revision,
    eventCount,
  };
}
