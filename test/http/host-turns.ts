// Test support for hosts writing turns over HTTP: entries of one tool round trip, and the checks
// a session's stored entries must pass (every tool result answers a call pending at its parent).
import { pendingToolCallsAt, type SessionEntry } from '@strata/session';
import { storedEventsOf, type HttpHarness } from './http-harness';

const timestamp = '2026-03-01T10:00:00.000Z';

export function userEntry(id: string, parentId: string | null, text = 'go'): SessionEntry {
  return { type: 'message', id, parentId, timestamp, message: { role: 'user', content: text, timestamp: 1 } };
}

export function callEntry(id: string, parentId: string, callId: string): SessionEntry {
  return {
    type: 'message',
    id,
    parentId,
    timestamp,
    message: {
      role: 'assistant',
      content: [{ type: 'toolCall', id: callId, name: 'read', arguments: { path: 'a.ts' } }],
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      stopReason: 'toolUse',
      timestamp: 2,
    },
  };
}

export function resultEntry(id: string, parentId: string, callId: string): SessionEntry {
  return {
    type: 'message',
    id,
    parentId,
    timestamp,
    message: {
      role: 'toolResult',
      toolCallId: callId,
      toolName: 'read',
      content: [{ type: 'text', text: 'ok' }],
      isError: false,
      timestamp: 3,
    },
  };
}

export function answerEntry(id: string, parentId: string): SessionEntry {
  return {
    type: 'message',
    id,
    parentId,
    timestamp,
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: 'Done.' }],
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      stopReason: 'stop',
      timestamp: 4,
    },
  };
}

/** The session's entries as its store holds them, in append order. */
export async function storedEntries(engine: HttpHarness, sessionId: string): Promise<SessionEntry[]> {
  const events = await storedEventsOf(engine, sessionId, 'EntryAppended');
  return events.map((event) => (event.data as { entry: SessionEntry }).entry);
}

/** The ids of the stored tool results that answer no call pending at their parent. */
export function separatedResults(entries: readonly SessionEntry[]): string[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  return entries.flatMap((entry) =>
    entry.type === 'message' &&
    entry.message.role === 'toolResult' &&
    !pendingToolCallsAt(entry.parentId, (id) => byId.get(id)).has(entry.message.toolCallId)
      ? [entry.id]
      : [],
  );
}
