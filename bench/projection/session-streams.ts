// Generated sessions written to a SQLite event store the way the engine records them: the
// session started, each entry appended (with a leaf move wherever an entry does not continue the
// current leaf), written in large batches so that 100,000 entries take seconds, not minutes.
import { randomUUID } from 'node:crypto';
import type { EventStore, EventToAppend } from '@strata/event-store';
import { sessionStreamName, type SessionEntry, type SessionEvent } from '@strata/session';
import type { GeneratedSession } from '../context/generate-session';

const EVENTS_PER_APPEND = 1_000;

export interface WrittenSession {
  readonly sessionId: string;
  readonly entryCount: number;
  readonly eventCount: number;
  /** The current leaf after the last event. */
  readonly leafId: string;
  readonly writeMs: number;
}

/** The events an engine would have recorded for the session, in order. */
export function recordedEventsOf(session: GeneratedSession): SessionEvent[] {
  const events: SessionEvent[] = [{ type: 'SessionStarted', data: { header: session.header } }];
  let leafId: string | null = null;
  for (const entry of session.entries) {
    if (entry.parentId !== leafId) {
      events.push({ type: 'LeafMoved', data: { leafId: entry.parentId, previousLeafId: leafId } });
    }
    events.push({ type: 'EntryAppended', data: { entry } });
    leafId = entry.id;
  }
  return events;
}

function toAppend(event: SessionEvent): EventToAppend {
  return { id: randomUUID(), type: event.type, data: event.data, metadata: {} };
}

/** Writes the session's events to its stream in batches of 1,000. */
export async function writeSession(store: EventStore, session: GeneratedSession): Promise<WrittenSession> {
  const started = process.hrtime.bigint();
  const events = recordedEventsOf(session);
  const streamId = sessionStreamName(session.header.id);
  for (let offset = 0; offset < events.length; offset += EVENTS_PER_APPEND) {
    await store.appendToStream(streamId, events.slice(offset, offset + EVENTS_PER_APPEND).map(toAppend));
  }
  const last = session.entries[session.entries.length - 1];
  if (last === undefined) throw new Error('a benchmark session needs entries');
  return {
    sessionId: session.header.id,
    entryCount: session.entries.length,
    eventCount: events.length,
    leafId: last.id,
    writeMs: Number(process.hrtime.bigint() - started) / 1e6,
  };
}

/** A short user message continuing `parentId` (what the warm cases append before each read). */
export function userTurnEntry(id: string, parentId: string, timestampMs: number): SessionEntry {
  return {
    type: 'message',
    id,
    parentId,
    timestamp: new Date(timestampMs).toISOString(),
    message: {
      role: 'user',
      content: `follow-up question ${id}: what changed since the last run?`,
      timestamp: timestampMs,
    },
  };
}

/** Appends one entry to the session's stream; returns its stream revision. */
export async function appendEntry(
  store: EventStore,
  sessionId: string,
  entry: SessionEntry,
): Promise<bigint> {
  const result = await store.appendToStream(sessionStreamName(sessionId), [
    toAppend({ type: 'EntryAppended', data: { entry } }),
  ]);
  return result.nextExpectedRevision;
}
