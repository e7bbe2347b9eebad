import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  InMemoryEventStore,
  SqliteEventStore,
  type EventStore,
  type RecordedEvent,
} from '@strata/event-store';
import { verifyStream } from '@strata/integrity';
import { SessionNotFoundError, loadSession } from '@strata/session-files';
import { sessionStreamName, type SessionEntry } from '@strata/session';
import { session } from '@strata/testing';
import { SessionStreams } from './session-streams.service';

const SESSION_ID = 'folded-session';

/** The store, counting the events its stream reads yield. */
function countingReads(inner: EventStore): { store: EventStore; eventsRead: () => number } {
  let eventsRead = 0;
  async function* counted(events: AsyncIterable<RecordedEvent>): AsyncGenerator<RecordedEvent> {
    for await (const event of events) {
      eventsRead += 1;
      yield event;
    }
  }
  const store: EventStore = {
    appendToStream: (...args) => inner.appendToStream(...args),
    readStream: (...args) => counted(inner.readStream(...args)),
    readAll: (...args) => inner.readAll(...args),
    subscribe: (...args) => inner.subscribe(...args),
    streamRevision: (...args) => inner.streamRevision(...args),
    getStreamMetadata: (...args) => inner.getStreamMetadata(...args),
    setStreamMetadata: (...args) => inner.setStreamMetadata(...args),
    eraseStream: (...args) => inner.eraseStream(...args),
    listErasures: (...args) => inner.listErasures(...args),
    close: () => inner.close(),
  };
  return { store, eventsRead: () => eventsRead };
}

function chain(idPrefix: string, length: number): readonly SessionEntry[] {
  const builder = session({ sessionId: SESSION_ID, idPrefix });
  for (let turn = 0; turn < length; turn += 1) builder.user(`${idPrefix} turn ${turn}`);
  return builder.entries;
}

/** Appends each entry with its own command; resolves to the most attempts one of them took. */
async function appendOneByOne(
  streams: SessionStreams,
  entries: readonly SessionEntry[],
  pause?: () => Promise<void>,
): Promise<number> {
  let mostAttempts = 0;
  for (const entry of entries) {
    const written = await streams.execute(SESSION_ID, { type: 'AppendEntries', data: { entries: [entry] } });
    mostAttempts = Math.max(mostAttempts, written.attempts);
    await pause?.();
  }
  return mostAttempts;
}

async function start(streams: SessionStreams): Promise<void> {
  const { header } = session({ sessionId: SESSION_ID });
  await streams.execute(SESSION_ID, { type: 'StartSession', data: { header } });
}

describe('SessionStreams', () => {
  describe('given a long session written through one engine', () => {
    it('reads only the stream event its cached fold ended with for the next command', async () => {
      const counting = countingReads(new InMemoryEventStore());
      const streams = new SessionStreams(counting.store);
      await start(streams);
      const entries = chain('e', 61);
      await appendOneByOne(streams, entries.slice(0, 60));
      const before = counting.eventsRead();
      const written = await streams.execute(SESSION_ID, {
        type: 'AppendEntries',
        data: { entries: [entries[60]!] },
      });
      expect(counting.eventsRead() - before).toBe(1);
      const loaded = await loadSession(counting.store, SESSION_ID);
      expect(written.revision).toBe(loaded.revision);
      expect(written.state.status === 'active' && written.state.entries()).toEqual(loaded.entries);
      expect(written.state.status === 'active' && written.state.leafId).toBe(entries[60]!.id);
    });

    it('reads the current state forward from the cached fold too, and sees writes made after it', async () => {
      const counting = countingReads(new InMemoryEventStore());
      const streams = new SessionStreams(counting.store);
      await start(streams);
      const entries = chain('e', 41);
      await appendOneByOne(streams, entries.slice(0, 40));
      let before = counting.eventsRead();
      const state = await streams.state(SESSION_ID);
      expect(counting.eventsRead() - before).toBe(1);
      expect(state.entries()).toEqual((await loadSession(counting.store, SESSION_ID)).entries);

      // Another engine's append (no shared cache) is read on the next call, and only it.
      await appendOneByOne(new SessionStreams(counting.store), entries.slice(40));
      before = counting.eventsRead();
      const after = await streams.state(SESSION_ID);
      expect(counting.eventsRead() - before).toBe(2);
      expect(after.leafId).toBe(entries[40]!.id);
      expect(after.entries()).toEqual((await loadSession(counting.store, SESSION_ID)).entries);
    });

    it('reads a session it has not cached from the start, and refuses one never started', async () => {
      const store = new InMemoryEventStore();
      await start(new SessionStreams(store));
      await appendOneByOne(new SessionStreams(store), chain('e', 3));
      const fresh = new SessionStreams(store, { maxSessions: 0, maxEntries: 0 });
      expect((await fresh.state(SESSION_ID)).entries()).toEqual(chain('e', 3));
      await expect(fresh.state('never-started')).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(new SessionStreams(store).state('never-started')).rejects.toBeInstanceOf(
        SessionNotFoundError,
      );
    });

    it.each([
      ['it keeps no sessions', { maxSessions: 0, maxEntries: 1_000 }],
      ['the session has more entries than it keeps', { maxSessions: 10, maxEntries: 9 }],
    ])('reads the whole stream for every command when %s', async (_case, bounds) => {
      const counting = countingReads(new InMemoryEventStore());
      const streams = new SessionStreams(counting.store, bounds);
      await start(streams);
      await appendOneByOne(streams, chain('e', 10));
      const before = counting.eventsRead();
      await streams.execute(SESSION_ID, () => []);
      expect(counting.eventsRead() - before).toBe(11);
    });
  });

  describe('given a session of a few large entries', () => {
    it('weighs them by their text in the entry bound: three 100 kB entries are not kept under a bound of 100', async () => {
      const counting = countingReads(new InMemoryEventStore());
      const streams = new SessionStreams(counting.store, { maxSessions: 10, maxEntries: 100 });
      await start(streams);
      const builder = session({ sessionId: SESSION_ID, idPrefix: 'big' });
      for (let turn = 0; turn < 3; turn += 1) builder.user(`${turn} ${'x'.repeat(100_000)}`);
      await appendOneByOne(streams, builder.entries);
      const before = counting.eventsRead();
      await streams.execute(SESSION_ID, () => []);
      // counted one each, 3 entries would be kept; weighed (3 × 49) they are not, so it reads all 4 events
      expect(counting.eventsRead() - before).toBe(4);
    });
  });

  describe('given two writers in one engine on one session at the same time (a request and a saga)', () => {
    it('loses and duplicates no entry: the loser of a race re-reads and appends after the winner', async () => {
      const store = new InMemoryEventStore();
      const streams = new SessionStreams(store);
      await start(streams);
      const [firstChain, secondChain] = [chain('a', 20), chain('b', 20)];
      const attempts = await Promise.all([
        appendOneByOne(streams, firstChain),
        appendOneByOne(streams, secondChain),
      ]);
      expect(Math.max(...attempts)).toBeGreaterThan(1);
      const loaded = await loadSession(store, SESSION_ID);
      expect(loaded.entries.map((entry) => entry.id).sort()).toEqual(
        [...firstChain, ...secondChain].map((entry) => entry.id).sort(),
      );
    });
  });

  describe('given two engines writing one session on one SQLite file at the same time', () => {
    let directory: string;
    beforeEach(() => {
      directory = mkdtempSync(join(tmpdir(), 'strata-session-streams-'));
    });
    afterEach(() => rmSync(directory, { recursive: true, force: true }));

    it('loses and duplicates no entry, and each engine then sees all of them', async () => {
      const filename = join(directory, 'events.db');
      const stores = [0, 1, 2].map(() => new SqliteEventStore({ filename }));
      try {
        const [first, second] = [new SessionStreams(stores[0]!), new SessionStreams(stores[1]!)];
        await start(first);
        await appendOneByOne(first, chain('warm', 5));
        await appendOneByOne(second, chain('other', 1));
        const [firstChain, secondChain] = [chain('a', 20), chain('b', 20)];
        const attempts = await Promise.all([
          // In the lockstep of two loops on one event loop, the same engine would lose every race
          // but for the random pause before a retry.
          appendOneByOne(first, firstChain),
          appendOneByOne(second, secondChain),
        ]);
        expect(Math.max(...attempts)).toBeGreaterThan(1);
        const loaded = await loadSession(stores[2]!, SESSION_ID);
        const ids = loaded.entries.map((entry) => entry.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect([...ids].sort()).toEqual(
          [...chain('warm', 5), ...chain('other', 1), ...firstChain, ...secondChain]
            .map((entry) => entry.id)
            .sort(),
        );
        for (const streams of [first, second]) {
          const seen = await streams.execute(SESSION_ID, () => []);
          expect(seen.revision).toBe(loaded.revision);
          expect(seen.state.status === 'active' && seen.state.entries()).toEqual(loaded.entries);
        }
        expect((await verifyStream(stores[2]!, sessionStreamName(SESSION_ID))).ok).toBe(true);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    });
  });
});
