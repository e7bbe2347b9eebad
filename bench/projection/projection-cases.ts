// The cases of suite `projection`: the context at the current leaf through the context
// projection (warm, after an append; and cold, hydrating the session first) against recomputing
// it from the stream.
import { type EventStore } from '@strata/event-store';
import { loadSession } from '@strata/session-files';
import { ContextProjection, readProjectedEvent } from '@strata/projections';
import {
  buildSessionContext,
  charsPerFourCounter,
  estimateMessageTokens,
  sessionStreamName,
} from '@strata/session';
import type { BenchCase } from '../harness';
import { appendEntry, userTurnEntry, type WrittenSession } from './session-streams';

/** A session being extended by the warm cases: its current leaf and the projection that holds it. */
export interface LiveSession {
  readonly store: EventStore;
  readonly written: WrittenSession;
  readonly projection: ContextProjection;
  leafId: string;
  appended: number;
}

export function newContextProjection(store: EventStore): ContextProjection {
  return new ContextProjection({ store, tokenCounter: charsPerFourCounter });
}

/** Appends a user turn to the store and hands the recorded event to the projection, as the runner would. */
export async function appendAndProject(session: LiveSession): Promise<void> {
  session.appended += 1;
  const id = `w${session.written.entryCount}-${session.appended}`;
  const entry = userTurnEntry(id, session.leafId, Date.UTC(2026, 11, 1) + session.appended * 1_000);
  const revision = await appendEntry(session.store, session.written.sessionId, entry);
  const streamId = sessionStreamName(session.written.sessionId);
  for await (const recorded of session.store.readStream(streamId, { fromRevision: revision, maxCount: 1 })) {
    const projected = readProjectedEvent(recorded);
    if (projected.kind === 'invalid') throw new Error(`appended event rejected: ${projected.report.detail}`);
    await session.projection.apply(projected.event);
  }
  session.leafId = id;
}

/** The reference way: read every event of the stream, fold, build the path's context, chars/4. */
export async function recomputeFromStream(
  store: EventStore,
  sessionId: string,
): Promise<{ messages: number; tokens: number }> {
  const loaded = await loadSession(store, sessionId);
  const context = buildSessionContext(loaded.entries, loaded.leafId, { prunedResults: loaded.prunedResults });
  let tokens = 0;
  for (const message of context.messages) tokens += estimateMessageTokens(message, charsPerFourCounter);
  return { messages: context.messages.length, tokens };
}

export function contextCases(session: LiveSession): BenchCase<unknown>[] {
  const size = session.written.entryCount;
  const group = `context at the current leaf · ${size.toLocaleString('en-US')} entries`;
  const details = { entries: size, events: session.written.eventCount };
  const prepare = (): Promise<void> => appendAndProject(session);
  const recompute: BenchCase<void> = {
    name: `projection/${size}/recompute-from-stream`,
    group,
    role: 'baseline',
    label: 'recompute from the stream (read all, fold, build, chars/4)',
    unit: 'context',
    details,
    setup: prepare,
    run: () => recomputeFromStream(session.store, session.written.sessionId),
  };
  const warm: BenchCase<void> = {
    name: `projection/${size}/projection-warm`,
    group,
    role: 'subject',
    label: 'context projection, warm (read after an append)',
    unit: 'context',
    details,
    setup: prepare,
    run: () => session.projection.contextAt(session.written.sessionId),
  };
  const cold: BenchCase<ContextProjection> = {
    name: `projection/${size}/projection-cold`,
    group,
    role: 'subject',
    label: 'context projection, cold (hydrate from the stream, then read)',
    unit: 'context',
    details,
    setup: async () => {
      await prepare();
      return newContextProjection(session.store);
    },
    run: (projection) => projection.contextAt(session.written.sessionId),
  };
  return [recompute, warm, cold] as BenchCase<unknown>[];
}
