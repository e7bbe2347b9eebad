// Test support for the projection specs (not exported from the library): generated sessions
// turned into the events an engine would have recorded — entries appended one by one, a leaf
// move wherever the next entry does not continue the leaf — with extra engine activity
// (pruning, navigation, stray messages) drawn by fast-check, and helpers to write them to a
// store one event per append.
import { randomUUID } from 'node:crypto';
import * as fc from 'fast-check';
import type { EventStore } from '@strata/event-store';
import {
  foldSessionEvents,
  sessionStreamName,
  type SessionEntry,
  type SessionEvent,
  type SessionState,
} from '@strata/session';
import type { GeneratedSession } from '@strata/testing';

export type ExtraActivity =
  | { readonly kind: 'prune'; readonly at: number; readonly pick: number; readonly tokens: number }
  | { readonly kind: 'move'; readonly at: number; readonly pick: number }
  | { readonly kind: 'strayResult'; readonly at: number; readonly pick: number }
  | { readonly kind: 'interject'; readonly at: number };

const fraction = fc.integer({ min: 0, max: 999 }).map((thousandths) => thousandths / 1000);

export const extraActivityArbitrary: fc.Arbitrary<ExtraActivity> = fc.oneof(
  fc.record({ kind: fc.constant('prune' as const), at: fraction, pick: fraction, tokens: fc.nat(5_000) }),
  fc.record({ kind: fc.constant('move' as const), at: fraction, pick: fraction }),
  fc.record({ kind: fc.constant('strayResult' as const), at: fraction, pick: fraction }),
  fc.record({ kind: fc.constant('interject' as const), at: fraction }),
);

function pick<T>(items: readonly T[], position: number): T | undefined {
  return items[Math.min(items.length - 1, Math.floor(position * items.length))];
}

function toolCallIds(entries: readonly SessionEntry[]): string[] {
  const ids: string[] = [];
  for (const entry of entries) {
    if (entry.type !== 'message' || entry.message.role !== 'assistant') continue;
    for (const block of entry.message.content) if (block.type === 'toolCall') ids.push(block.id);
  }
  return ids;
}

/** The events of a generated session with the extra activity woven in at its fractions of the history. */
export function sessionEventsOf(
  session: GeneratedSession,
  extras: readonly ExtraActivity[] = [],
): SessionEvent[] {
  const events: SessionEvent[] = [{ type: 'SessionStarted', data: { header: session.header } }];
  const appended: SessionEntry[] = [];
  const pruned = new Set<string>();
  let leafId: string | null = null;
  let extraCount = 0;
  const moveTo = (target: string | null): void => {
    if (target === leafId) return;
    events.push({ type: 'LeafMoved', data: { leafId: target, previousLeafId: leafId } });
    leafId = target;
  };
  const append = (entry: SessionEntry): void => {
    moveTo(entry.parentId);
    events.push({ type: 'EntryAppended', data: { entry } });
    appended.push(entry);
    leafId = entry.id;
  };
  const timestamp = (): string => session.entries[appended.length - 1]?.timestamp ?? session.header.timestamp;
  const applyExtra = (extra: ExtraActivity): void => {
    switch (extra.kind) {
      case 'prune': {
        const results = appended.filter(
          (entry) => entry.type === 'message' && entry.message.role === 'toolResult' && !pruned.has(entry.id),
        );
        const target = pick(results, extra.pick);
        if (target === undefined) return;
        pruned.add(target.id);
        events.push({
          type: 'ToolOutputsPruned',
          data: {
            prunedAt: 1_000 + events.length,
            results: [{ entryId: target.id, tokens: extra.tokens }],
            tokensSaved: 1,
          },
        });
        return;
      }
      case 'move': {
        const target = extra.pick < 0.05 ? null : (pick(appended, extra.pick)?.id ?? null);
        moveTo(target);
        return;
      }
      case 'strayResult': {
        extraCount += 1;
        const callId = pick(toolCallIds(appended), extra.pick) ?? `call_unknown_${extraCount}`;
        append({
          type: 'message',
          id: `x${String(extraCount).padStart(4, '0')}`,
          parentId: leafId,
          timestamp: timestamp(),
          message: {
            role: 'toolResult',
            toolCallId: callId,
            toolName: 'read',
            content: [{ type: 'text', text: `stray output ${extraCount}` }],
            isError: false,
            timestamp: 1_000 + extraCount,
          },
        });
        return;
      }
      case 'interject':
        extraCount += 1;
        append({
          type: 'message',
          id: `x${String(extraCount).padStart(4, '0')}`,
          parentId: leafId,
          timestamp: timestamp(),
          message: { role: 'user', content: `interjection ${extraCount}`, timestamp: 1_000 + extraCount },
        });
        return;
      default: {
        const unreachable: never = extra;
        throw new Error(`unknown extra ${JSON.stringify(unreachable)}`);
      }
    }
  };
  const total = session.entries.length;
  const byStep = [...extras].sort((left, right) => left.at - right.at);
  let next = 0;
  for (let index = 0; index <= total; index += 1) {
    while (next < byStep.length && Math.floor((byStep[next] as ExtraActivity).at * (total + 1)) <= index) {
      applyExtra(byStep[next] as ExtraActivity);
      next += 1;
    }
    const entry = session.entries[index];
    if (entry !== undefined) append(entry);
  }
  moveTo(session.leafId);
  return events;
}

/** Appends the events to the session's stream one append each; returns each event's global position. */
export async function appendEvents(
  store: EventStore,
  sessionId: string,
  events: readonly SessionEvent[],
  metadata: Readonly<Record<string, unknown>> = {},
): Promise<bigint[]> {
  const positions: bigint[] = [];
  for (const event of events) {
    const result = await store.appendToStream(sessionStreamName(sessionId), [
      { id: randomUUID(), type: event.type, data: event.data, metadata },
    ]);
    positions.push(result.position);
  }
  return positions;
}

/** The decider's fold of the events: the oracle the projections are compared with. */
export function foldedSession(events: readonly SessionEvent[]): Extract<SessionState, { status: 'active' }> {
  const state = foldSessionEvents(events);
  if (state.status !== 'active') throw new Error('the events never started the session');
  return state;
}
