import * as fc from 'fast-check';
import { InMemoryCheckpointStore, InMemoryEventStore } from '@strata/event-store';
import { SessionNotFoundError } from '@strata/session-files';
import {
  buildSessionContext,
  buildSessionTree,
  charsPerFourCounter,
  estimateMessageTokens,
  evolve,
  type SessionContext,
  type SessionEvent,
  type TokenCounter,
} from '@strata/session';
import {
  generatedSessionArbitrary,
  pseudoRandomLetters,
  session,
  type GeneratedSession,
} from '@strata/testing';
import { createPreparedTokenCounter, o200kTokenCounter } from '@strata/tokenizer';
import { createReadModelRunner } from '../runner/read-model-runner';
import {
  appendEvents,
  extraActivityArbitrary,
  foldedSession,
  sessionEventsOf,
} from '../testing/session-events';
import { ContextProjection } from './context-projection';
import { SessionSetAsideError } from '../runner/session-set-aside';
import { UnknownEntryError } from './session-view';

const sessionId = 'generated-session';

/** The oracle: the decider's fold of the events, then the pure builder. */
function expectedContext(events: readonly SessionEvent[], leafId?: string | null): SessionContext {
  const state = foldedSession(events);
  const leaf = leafId === undefined ? state.leafId : leafId;
  return buildSessionContext(state.entries(), leaf, { prunedResults: state.prunedResults() });
}

function tokensOf(context: SessionContext, counter: TokenCounter = charsPerFourCounter): number {
  return context.messages.reduce((total, message) => total + estimateMessageTokens(message, counter), 0);
}

/** A counter that counts its calls. */
function countingCounter(): TokenCounter & { calls: number } {
  const counter = {
    name: 'chars4',
    calls: 0,
    countPieces(pieces: readonly string[], imageCount: number): number {
      counter.calls += 1;
      return charsPerFourCounter.countPieces(pieces, imageCount);
    },
  };
  return counter;
}

const sessionWithActivity = fc.record({
  session: generatedSessionArbitrary({
    maxEntries: 40,
    compactions: true,
    modelChangeShapes: 'both',
    extensionEntries: true,
    keptRegionCuts: true,
  }),
  extras: fc.array(extraActivityArbitrary, { maxLength: 8 }),
  leafPicks: fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), {
    minLength: 1,
    maxLength: 4,
  }),
});

function entryIdsOf(events: readonly SessionEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'EntryAppended' ? [event.data.entry.id] : []));
}

describe('ContextProjection', () => {
  describe('given generated sessions hydrated from the store on a miss', () => {
    it('answers the same context as the pure buildSessionContext for random leaves, with the token total', async () => {
      await fc.assert(
        fc.asyncProperty(sessionWithActivity, async ({ session, extras, leafPicks }) => {
          const store = new InMemoryEventStore();
          const events = sessionEventsOf(session, extras);
          await appendEvents(store, sessionId, events);
          const projection = new ContextProjection({ store, tokenCounter: charsPerFourCounter });

          const current = await projection.contextAt(sessionId);
          expect(current.context).toEqual(expectedContext(events));
          expect(current.tokens).toBe(tokensOf(current.context));

          const entryIds = entryIdsOf(events);
          for (const leafPick of leafPicks) {
            const leafId = entryIds[Math.floor(leafPick * entryIds.length)] as string;
            const atLeaf = await projection.contextAt(sessionId, leafId);
            expect(atLeaf.context).toEqual(expectedContext(events, leafId));
            expect(atLeaf.tokens).toBe(tokensOf(atLeaf.context));
            expect(atLeaf.messageTokens).toHaveLength(atLeaf.context.messages.length);
          }
          expect((await projection.contextAt(sessionId, null)).context).toEqual(
            expectedContext(events, null),
          );
          const state = foldedSession(events);
          const tree = await projection.sessionTree(sessionId);
          const expectedTree = buildSessionTree(state.entries());
          expect(tree.entries).toEqual(expectedTree.entries);
          expect(tree.children).toEqual(expectedTree.children);
          expect(tree.labels).toEqual(expectedTree.labels);
          expect(tree.leafId).toBe(state.leafId);
          expect(projection.stats().hydrations).toBe(1);
        }),
        { numRuns: 40 },
      );
    });
  });

  describe('given a held session that keeps receiving events from the runner', () => {
    it('keeps the context of the current leaf equal to the pure builder after every event', async () => {
      await fc.assert(
        fc.asyncProperty(
          sessionWithActivity,
          fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
          async ({ session, extras, leafPicks }, split) => {
            const store = new InMemoryEventStore();
            const events = sessionEventsOf(session, extras);
            const hydratedAfter = 1 + Math.floor(split * (events.length - 1));
            await appendEvents(store, sessionId, events.slice(0, hydratedAfter));
            const projection = new ContextProjection({ store, tokenCounter: charsPerFourCounter });
            const runner = createReadModelRunner({
              store,
              checkpoints: new InMemoryCheckpointStore(),
              projections: [projection],
            });
            await runner.start();
            await runner.whenCaughtUp();
            expect((await projection.contextAt(sessionId)).context).toEqual(
              expectedContext(events.slice(0, hydratedAfter)),
            );

            let state = foldedSession(events.slice(0, hydratedAfter));
            for (let index = hydratedAfter; index < events.length; index += 1) {
              const event = events[index] as SessionEvent;
              const [position] = await appendEvents(store, sessionId, [event]);
              state = evolve(state, event) as typeof state;
              await runner.waitForPosition(position as bigint);
              const current = await projection.contextAt(sessionId);
              expect(current.context).toEqual(
                buildSessionContext(state.entries(), state.leafId, { prunedResults: state.prunedResults() }),
              );
              expect(current.tokens).toBe(tokensOf(current.context));
            }
            const entryIds = entryIdsOf(events);
            for (const leafPick of leafPicks) {
              const leafId = entryIds[Math.floor(leafPick * entryIds.length)] as string;
              expect((await projection.contextAt(sessionId, leafId)).context).toEqual(
                expectedContext(events, leafId),
              );
            }
            expect(projection.stats().hydrations).toBe(1);
            await runner.stop();
          },
        ),
        { numRuns: 20 },
      );
    });
  });

  describe('given the current leaf was read once', () => {
    it('extends its context on append without building it again or counting old messages again', async () => {
      const store = new InMemoryEventStore();
      const session = fc.sample(generatedSessionArbitrary({ maxEntries: 30, branching: false }), {
        numRuns: 1,
        seed: 7,
      })[0]!;
      const events = sessionEventsOf(session);
      const [head, tail] = [events.slice(0, -3), events.slice(-3)];
      await appendEvents(store, sessionId, head);
      const counter = countingCounter();
      const projection = new ContextProjection({ store, tokenCounter: counter });
      const runner = createReadModelRunner({
        store,
        checkpoints: new InMemoryCheckpointStore(),
        projections: [projection],
      });
      await runner.start();
      await projection.contextAt(sessionId);
      const callsAfterFirstRead = counter.calls;

      const positions = await appendEvents(store, sessionId, tail);
      await runner.waitForPosition(positions[positions.length - 1] as bigint);
      const after = await projection.contextAt(sessionId);

      expect(after.context).toEqual(expectedContext(events));
      expect(projection.stats().currentLeafBuilds).toBe(1);
      expect(counter.calls - callsAfterFirstRead).toBeLessThanOrEqual(tail.length);
      await runner.stop();
    });
  });

  describe('given a memory limit', () => {
    const sessions = ['alpha', 'beta', 'gamma'];

    async function storeWithSessions(entriesEach: number) {
      const store = new InMemoryEventStore();
      const eventsBySession = new Map<string, SessionEvent[]>();
      for (const id of sessions) {
        const session = fc.sample(generatedSessionArbitrary({ maxEntries: entriesEach, sessionId: id }), {
          numRuns: 1,
          seed: id.length,
        })[0]!;
        const events = sessionEventsOf(session);
        eventsBySession.set(id, events);
        await appendEvents(store, id, events);
      }
      return { store, eventsBySession };
    }

    it('evicts the least recently used session beyond the session limit and hydrates it again on demand', async () => {
      const { store, eventsBySession } = await storeWithSessions(12);
      const projection = new ContextProjection({ store, tokenCounter: charsPerFourCounter, maxSessions: 2 });

      for (const id of sessions) await projection.contextAt(id);
      expect(projection.stats()).toMatchObject({ sessions: 2, evictions: 1, hydrations: 3 });
      expect(projection.accepts('alpha')).toBe(false);

      const again = await projection.contextAt('alpha');
      expect(again.context).toEqual(expectedContext(eventsBySession.get('alpha')!));
      expect(projection.stats()).toMatchObject({ sessions: 2, evictions: 2, hydrations: 4 });
      expect(projection.accepts('beta')).toBe(false);
    });

    it('keeps the entries held within the entry limit', async () => {
      const { store, eventsBySession } = await storeWithSessions(20);
      const entryCount = (id: string) => entryIdsOf(eventsBySession.get(id)!).length;
      const limit = entryCount('beta') + entryCount('gamma');
      const projection = new ContextProjection({
        store,
        tokenCounter: charsPerFourCounter,
        maxEntries: limit,
      });

      for (const id of sessions) {
        await projection.contextAt(id);
        expect(projection.stats().entries).toBeLessThanOrEqual(Math.max(limit, entryCount(id)));
      }
      expect(projection.accepts('gamma')).toBe(true);
      expect(projection.accepts('alpha')).toBe(false);
      expect((await projection.contextAt('alpha')).context).toEqual(
        expectedContext(eventsBySession.get('alpha')!),
      );
    });
  });

  describe('given sessions of large entries under an entry limit', () => {
    it('weighs each entry by its text, so large entries are not held past the limit as if they were small', async () => {
      const store = new InMemoryEventStore();
      const eventsById = new Map<string, SessionEvent[]>();
      for (const id of ['large-1', 'large-2']) {
        // 300,000 characters: one entry that weighs as 147 small ones
        const built = session({ sessionId: id }).user(pseudoRandomLetters(300_000, id.length));
        const events: SessionEvent[] = [
          { type: 'SessionStarted', data: { header: built.header } },
          ...built.entries.map((entry): SessionEvent => ({ type: 'EntryAppended', data: { entry } })),
        ];
        eventsById.set(id, events);
        await appendEvents(store, id, events);
      }
      const projection = new ContextProjection({ store, tokenCounter: charsPerFourCounter, maxEntries: 200 });

      await projection.contextAt('large-1');
      expect(projection.stats()).toMatchObject({ sessions: 1, entries: 1, weight: 147 });
      await projection.contextAt('large-2');
      expect(projection.stats()).toMatchObject({ sessions: 1, entries: 1, weight: 147, evictions: 1 });
      expect(projection.accepts('large-1')).toBe(false);
      expect((await projection.contextAt('large-1')).context).toEqual(
        expectedContext(eventsById.get('large-1')!),
      );
    });
  });

  describe('given a position in the global history', () => {
    it('answers the context as of that position, equal to the one computed from the events up to it', async () => {
      await fc.assert(
        fc.asyncProperty(
          sessionWithActivity,
          fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
          async ({ session, extras }, cut) => {
            const store = new InMemoryEventStore();
            const events = sessionEventsOf(session, extras);
            const positions: bigint[] = [];
            for (const event of events) {
              positions.push(...(await appendEvents(store, sessionId, [event])));
              await appendEvents(store, 'other-session', [event]);
            }
            const projection = new ContextProjection({ store, tokenCounter: charsPerFourCounter });
            const index = Math.floor(cut * events.length);
            const asOf = (positions[index] as bigint) + 1n;

            const answered = await projection.contextAsOf(sessionId, asOf);
            expect(answered.context).toEqual(expectedContext(events.slice(0, index + 1)));
            expect(answered.tokens).toBe(tokensOf(answered.context));
            expect(answered.position).toBe(positions[index]);
          },
        ),
        { numRuns: 40 },
      );
    });

    it('reports a session that had not started by then as not found', async () => {
      const store = new InMemoryEventStore();
      await appendEvents(store, 'earlier', [
        { type: 'LeafMoved', data: { leafId: null, previousLeafId: null } },
      ]);
      const session = fc.sample(generatedSessionArbitrary({ maxEntries: 5 }), { numRuns: 1, seed: 3 })[0]!;
      await appendEvents(store, sessionId, sessionEventsOf(session));
      const projection = new ContextProjection({ store, tokenCounter: charsPerFourCounter });

      await expect(projection.contextAsOf(sessionId, 1n)).rejects.toBeInstanceOf(SessionNotFoundError);
    });
  });

  describe('given questions it cannot answer', () => {
    it('reports an unknown session and an unknown leaf', async () => {
      const store = new InMemoryEventStore();
      const session = fc.sample(generatedSessionArbitrary({ maxEntries: 5 }), { numRuns: 1, seed: 5 })[0]!;
      await appendEvents(store, sessionId, sessionEventsOf(session));
      const projection = new ContextProjection({ store, tokenCounter: charsPerFourCounter });

      await expect(projection.contextAt('missing')).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(projection.contextAt(sessionId, 'no-such-entry')).rejects.toBeInstanceOf(
        UnknownEntryError,
      );
    });
  });

  describe('given sessions of two tenants', () => {
    it('answers a tenant only about its own sessions', async () => {
      const store = new InMemoryEventStore();
      const session = fc.sample(generatedSessionArbitrary({ maxEntries: 5 }), { numRuns: 1, seed: 17 })[0]!;
      const positions = await appendEvents(store, sessionId, sessionEventsOf(session), { tenant: 'acme' });
      const projection = new ContextProjection({ store, tokenCounter: charsPerFourCounter });
      const globex = { tenant: 'globex' };

      expect((await projection.contextAt(sessionId, undefined, { tenant: 'acme' })).tenant).toBe('acme');
      await expect(projection.contextAt(sessionId, undefined, globex)).rejects.toBeInstanceOf(
        SessionNotFoundError,
      );
      await expect(projection.sessionTree(sessionId, globex)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(
        projection.contextAsOf(sessionId, positions[0]!, undefined, globex),
      ).rejects.toBeInstanceOf(SessionNotFoundError);
    });
  });

  describe('given a stream holding an event that is not a session event', () => {
    it('reports it, skips it while hydrating, and still answers the right context', async () => {
      const store = new InMemoryEventStore();
      const session = fc.sample(generatedSessionArbitrary({ maxEntries: 10 }), { numRuns: 1, seed: 9 })[0]!;
      const events = sessionEventsOf(session);
      await appendEvents(store, sessionId, events.slice(0, 2));
      await store.appendToStream('session-generated-session', [
        { id: '0190a8f0-0000-7000-8000-000000000001', type: 'SomethingNew', data: { whatever: true } },
      ]);
      await appendEvents(store, sessionId, events.slice(2));
      const reports: string[] = [];
      const projection = new ContextProjection({
        store,
        tokenCounter: charsPerFourCounter,
        onInvalidEvent: (report) => reports.push(`${report.reason}:${report.type}`),
      });

      expect((await projection.contextAt(sessionId)).context).toEqual(expectedContext(events));
      expect(reports).toEqual(['unknown_type:SomethingNew']);
    });
  });

  describe('given a stream holding a session event whose data does not validate', () => {
    it('sets the session aside: its reads name the event instead of answering a context without it', async () => {
      const store = new InMemoryEventStore();
      const session = fc.sample(generatedSessionArbitrary({ maxEntries: 10 }), { numRuns: 1, seed: 9 })[0]!;
      const events = sessionEventsOf(session);
      await appendEvents(store, sessionId, events.slice(0, 2));
      const badId = '0190a8f0-0000-7000-8000-000000000002';
      await store.appendToStream('session-generated-session', [
        { id: badId, type: 'LeafMoved', data: { leafId: 42 } },
      ]);
      const projection = new ContextProjection({ store, tokenCounter: charsPerFourCounter });

      const read = projection.contextAt(sessionId);

      await expect(read).rejects.toBeInstanceOf(SessionSetAsideError);
      await expect(read).rejects.toMatchObject({
        sessionId,
        event: { eventId: badId, projection: 'context' },
      });
      await expect(projection.sessionTree(sessionId)).rejects.toBeInstanceOf(SessionSetAsideError);
      expect(projection.stats().sessions).toBe(0);
    });
  });

  describe('given a held session with events the runner has not delivered', () => {
    it('reads them from the stream before it answers, counting only the new entries', async () => {
      const store = new InMemoryEventStore();
      const session = fc.sample(generatedSessionArbitrary({ maxEntries: 20 }), { numRuns: 1, seed: 12 })[0]!;
      const events = sessionEventsOf(session);
      const split = Math.ceil(events.length / 2);
      await appendEvents(store, sessionId, events.slice(0, split));
      const counter = countingCounter();
      const projection = new ContextProjection({ store, tokenCounter: counter });
      await projection.contextAt(sessionId);
      const callsAfterFirstRead = counter.calls;

      await appendEvents(store, sessionId, events.slice(split));
      const read = await projection.contextAt(sessionId);

      expect(read.context).toEqual(expectedContext(events));
      expect(projection.stats()).toMatchObject({ hydrations: 1, hits: 1 });
      expect(counter.calls - callsAfterFirstRead).toBeLessThanOrEqual(events.length - split);
    });
  });

  describe('given a held session the runner sets aside', () => {
    it('forgets it', async () => {
      const store = new InMemoryEventStore();
      const session = fc.sample(generatedSessionArbitrary({ maxEntries: 10 }), { numRuns: 1, seed: 10 })[0]!;
      await appendEvents(store, sessionId, sessionEventsOf(session));
      const projection = new ContextProjection({ store, tokenCounter: charsPerFourCounter });
      await projection.contextAt(sessionId);
      expect(projection.stats().sessions).toBe(1);

      projection.forget(sessionId);

      expect(projection.stats()).toMatchObject({ sessions: 0, entries: 0 });
    });
  });

  describe('given a held session that receives an event out of order', () => {
    it('drops the session and hydrates it again from the stream', async () => {
      const store = new InMemoryEventStore();
      const session = fc.sample(generatedSessionArbitrary({ maxEntries: 10 }), { numRuns: 1, seed: 11 })[0]!;
      const events = sessionEventsOf(session);
      await appendEvents(store, sessionId, events);
      const projection = new ContextProjection({ store, tokenCounter: charsPerFourCounter });
      const held = await projection.contextAt(sessionId);

      await projection.apply({
        sessionId,
        streamId: 'session-generated-session',
        eventId: 'skipped-ahead',
        revision: held.revision + 2n,
        position: held.position + 5n,
        recordedAt: '2026-01-01T00:00:00.000Z',
        tenant: 'default',
        event: { type: 'LeafMoved', data: { leafId: null, previousLeafId: null } },
      });

      expect(projection.accepts(sessionId)).toBe(false);
      expect((await projection.contextAt(sessionId)).context).toEqual(expectedContext(events));
      expect(projection.stats().hydrations).toBe(2);
    });
  });

  describe('given a session whose tokens were never counted', () => {
    /** A session of `turns` turns (texts `turn N ...`), compacted to keep its last `kept` entries. */
    function compactedSession(turns: number, kept = 8): GeneratedSession {
      const builder = session({ sessionId });
      for (let turn = 0; turn < turns; turn += 1)
        builder.user(`turn ${turn} question`).assistant(`turn ${turn} answer`);
      const firstKept = builder.entries[builder.entries.length - kept]!;
      builder.compaction({
        firstKeptEntryId: firstKept.id,
        tokensBefore: 1_000,
        summary: 'summary of the early turns',
      });
      builder.user('after the compaction').assistant('still here');
      return { header: builder.header, entries: [...builder.entries], leafId: builder.leafId };
    }

    it('counts only what the context at the current leaf keeps, nothing before the compaction', async () => {
      const store = new InMemoryEventStore();
      const events = sessionEventsOf(compactedSession(12));
      await appendEvents(store, sessionId, events);
      const counted: string[] = [];
      const recordingCounter: TokenCounter = {
        name: 'chars4',
        countPieces: (pieces, imageCount) => {
          counted.push(...pieces);
          return charsPerFourCounter.countPieces(pieces, imageCount);
        },
      };
      const projection = new ContextProjection({ store, tokenCounter: recordingCounter });

      const answered = await projection.contextAt(sessionId);
      expect(answered.context).toEqual(expectedContext(events));
      expect(answered.tokens).toBe(tokensOf(answered.context));
      const text = counted.join('\n');
      for (const turn of [8, 9, 10, 11]) expect(text).toContain(`turn ${turn} question`);
      for (const turn of [0, 1, 7]) expect(text).not.toContain(`turn ${turn} question`);
    });

    it('counts between turns of the event loop, so other work runs before the answer', async () => {
      const store = new InMemoryEventStore();
      const events = sessionEventsOf(compactedSession(40, 60));
      await appendEvents(store, sessionId, events);
      const slowCounter: TokenCounter = {
        name: 'chars4',
        countPieces: (pieces, imageCount) => {
          const until = performance.now() + 4;
          while (performance.now() < until) {
            // A long text under o200k: several milliseconds of work per message.
          }
          return charsPerFourCounter.countPieces(pieces, imageCount);
        },
      };
      const projection = new ContextProjection({ store, tokenCounter: slowCounter });
      await projection.sessionTree(sessionId); // hydrated: only the counting is left
      let timerRan = false;
      setTimeout(() => {
        timerRan = true;
      }, 0);

      const answered = await projection.contextAt(sessionId);
      expect(timerRan).toBe(true);
      expect(answered.context).toEqual(expectedContext(events));
      expect(answered.tokens).toBe(tokensOf(answered.context));
    });
  });

  describe('given an injected token counter', () => {
    it('counts with it and names it', async () => {
      const store = new InMemoryEventStore();
      const session = fc.sample(generatedSessionArbitrary({ maxEntries: 30, compactions: true }), {
        numRuns: 1,
        seed: 13,
      })[0]!;
      const events = sessionEventsOf(session);
      await appendEvents(store, sessionId, events);
      const wordCounter: TokenCounter = {
        name: 'words',
        countPieces: (pieces, imageCount) =>
          imageCount * 100 + pieces.reduce((total, piece) => total + piece.split(/\s+/).length, 0),
      };
      const projection = new ContextProjection({ store, tokenCounter: wordCounter });

      const answered = await projection.contextAt(sessionId);
      expect(answered.tokenCounter).toBe('words');
      expect(answered.tokens).toBe(tokensOf(answered.context, wordCounter));
      expect(answered.tokens).not.toBe(tokensOf(answered.context));
    });
  });

  describe("given the engine's o200k counter and entries with long texts", () => {
    /** A session of two turns whose last answer is `text`. */
    function sessionEndingWith(text: string): GeneratedSession {
      const builder = session({ sessionId }).user('first').assistant('ok').user('show it').assistant(text);
      return { header: builder.header, entries: [...builder.entries], leafId: builder.leafId };
    }

    /** Whether a timer ran while `work` ran. */
    async function timerRanDuring<T>(work: () => Promise<T>): Promise<{ result: T; timerRan: boolean }> {
      let timerRan = false;
      setTimeout(() => {
        timerRan = true;
      }, 0);
      const result = await work();
      return { result, timerRan };
    }

    it("counts a long text of a hydrated session in slices, to the plain counter's total", async () => {
      const store = new InMemoryEventStore();
      const events = sessionEventsOf(sessionEndingWith(pseudoRandomLetters(1_000_000, 1)));
      await appendEvents(store, sessionId, events);
      const counter = createPreparedTokenCounter('o200k');
      const projection = new ContextProjection({ store, tokenCounter: counter });
      await projection.sessionTree(sessionId);

      const { result, timerRan } = await timerRanDuring(() => projection.contextAt(sessionId));
      expect(timerRan).toBe(true);
      expect(result.tokens).toBe(tokensOf(result.context, o200kTokenCounter));
      expect(counter.stats()).toMatchObject({ countedAhead: 1, countedOnTheSpot: 0 });
    });

    it('leaves a long text appended to a read leaf to the next read instead of counting it on arrival', async () => {
      const store = new InMemoryEventStore();
      const events = sessionEventsOf(sessionEndingWith(pseudoRandomLetters(1_000_000, 2)));
      const [head, tail] = [events.slice(0, -1), events.slice(-1)];
      await appendEvents(store, sessionId, head);
      const counter = createPreparedTokenCounter('o200k');
      const projection = new ContextProjection({ store, tokenCounter: counter });
      const runner = createReadModelRunner({
        store,
        checkpoints: new InMemoryCheckpointStore(),
        projections: [projection],
      });
      await runner.start();
      await projection.contextAt(sessionId);

      const positions = await appendEvents(store, sessionId, tail);
      await runner.waitForPosition(positions[positions.length - 1] as bigint);
      expect(counter.stats()).toMatchObject({ countedAhead: 0, countedOnTheSpot: 0 });

      const { result, timerRan } = await timerRanDuring(() => projection.contextAt(sessionId));
      expect(timerRan).toBe(true);
      expect(result.context).toEqual(expectedContext(events));
      expect(result.tokens).toBe(tokensOf(result.context, o200kTokenCounter));
      expect(counter.stats()).toMatchObject({ countedAhead: 1, countedOnTheSpot: 0 });
      await runner.stop();
    });

    it('still extends the read leaf on arrival when the long text was counted ahead', async () => {
      const store = new InMemoryEventStore();
      const long = 'z'.repeat(200_000);
      const events = sessionEventsOf(sessionEndingWith(long));
      const [head, tail] = [events.slice(0, -1), events.slice(-1)];
      await appendEvents(store, sessionId, head);
      const counter = createPreparedTokenCounter('o200k');
      const projection = new ContextProjection({ store, tokenCounter: counter });
      const runner = createReadModelRunner({
        store,
        checkpoints: new InMemoryCheckpointStore(),
        projections: [projection],
      });
      await runner.start();
      await projection.contextAt(sessionId);
      const buildsAfterFirstRead = projection.stats().currentLeafBuilds;

      await counter.countAhead([long]);
      const positions = await appendEvents(store, sessionId, tail);
      await runner.waitForPosition(positions[positions.length - 1] as bigint);
      const after = await projection.contextAt(sessionId);
      expect(after.tokens).toBe(tokensOf(after.context, o200kTokenCounter));
      expect(projection.stats().currentLeafBuilds).toBe(buildsAfterFirstRead);
      expect(counter.stats()).toMatchObject({ countedAhead: 1, countedOnTheSpot: 0 });
      await runner.stop();
    });
  });
});
