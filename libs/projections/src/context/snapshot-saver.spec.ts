// When the snapshot saver writes a session's snapshot (snapshot-saver.ts), driven sweep by sweep
// over views in memory: an idle session once, a session a few events ahead of its snapshot not
// at every pause, one far ahead even while it changes, and an erasure during a write leaves
// nothing stored.
import { charsPerFourCounter, type SessionEntry, type SessionEvent } from '@strata/session';
import { SessionBuilder } from '@strata/testing';
import type { ProjectedEvent } from '../runner/projected-event';
import { decodeSessionSnapshot, type SessionSnapshotRow } from './session-snapshot';
import { SnapshotSaver, type SnapshotLimits } from './snapshot-saver';
import { InMemorySnapshotStorage } from './snapshot-storage';
import { SessionView } from './session-view';

const COUNTER_KEY = 'chars4/v1';

/** A view of a session of `turns` edit turns, with a way to append more entries to it. */
function heldSession(sessionId: string, turns: number) {
  const builder = new SessionBuilder({ sessionId }).editTurns(turns);
  const view = new SessionView(sessionId, charsPerFourCounter);
  let revision = 0n;
  const apply = (event: SessionEvent) => {
    const projected: ProjectedEvent = {
      sessionId,
      streamId: `session-${sessionId}`,
      eventId: `${sessionId}-${revision}`,
      revision,
      position: 1_000n + revision,
      recordedAt: '2026-12-06T00:00:00.000Z',
      tenant: 'default',
      event,
    };
    revision += 1n;
    expect(view.apply(projected)).toBe('applied');
  };
  apply({ type: 'SessionStarted', data: { header: builder.header } });
  const appendEntries = (entries: readonly SessionEntry[]) => {
    for (const entry of entries) apply({ type: 'EntryAppended', data: { entry } });
  };
  appendEntries(builder.entries);
  let turn = turns;
  return {
    view,
    /** Appends `count` entries (whole turns of four). */
    append(count: number) {
      builder.editTurns(count / 4, { first: turn });
      turn += count / 4;
      appendEntries(builder.entries.slice(-count));
    },
  };
}

function saverOf(views: readonly SessionView[], limits: SnapshotLimits = {}) {
  const storage = new InMemorySnapshotStorage();
  const saver = new SnapshotSaver(storage, COUNTER_KEY, () => views, { minEntries: 1, ...limits });
  const sweep = async () => {
    saver.sweep();
    await saver.settled();
  };
  const keptRevision = async (sessionId: string) => {
    const row: SessionSnapshotRow | undefined = await storage.load(sessionId);
    if (row === undefined) return undefined;
    const decoded = decodeSessionSnapshot(row, sessionId, COUNTER_KEY);
    if (decoded.kind !== 'usable') throw new Error(decoded.reason);
    return decoded.state.revision;
  };
  return { storage, saver, sweep, keptRevision };
}

describe('the snapshot saver', () => {
  it('writes an idle session once, and again only when it is far enough ahead', async () => {
    const session = heldSession('idle', 5);
    const { saver, sweep, keptRevision } = saverOf([session.view], { idleEvents: 8 });
    await sweep(); // the first sweep sees the session for the first time: not idle yet
    expect(await keptRevision('idle')).toBeUndefined();
    await sweep();
    expect(await keptRevision('idle')).toBe(20n);
    await sweep();
    expect(saver.stats().saved).toBe(1);

    session.append(4);
    await sweep();
    await sweep();
    expect(await keptRevision('idle')).toBe(20n); // idle, but only four events ahead

    session.append(4);
    await sweep();
    await sweep();
    expect(await keptRevision('idle')).toBe(28n);
    expect(saver.stats().saved).toBe(2);
  });

  it('writes a session that never rests once it is far enough ahead of its snapshot', async () => {
    const session = heldSession('busy', 5);
    const { sweep, keptRevision } = saverOf([session.view], { everyEvents: 12 });
    const kept: (bigint | undefined)[] = [];
    for (let round = 0; round < 5; round += 1) {
      session.append(4);
      await sweep();
      kept.push(await keptRevision('busy'));
    }
    // 25 events ahead of none at the first sweep, then 4, 8, 12 and 4 ahead of the last.
    expect(kept).toEqual([24n, 24n, 24n, 36n, 36n]);
  });

  it('writes what is behind when it closes, and nothing after', async () => {
    const session = heldSession('closing', 5);
    const { saver, keptRevision } = saverOf([session.view]);
    await saver.close();
    expect(await keptRevision('closing')).toBe(20n);
    session.append(4);
    saver.evicted(session.view);
    saver.sweep();
    await saver.settled();
    expect(await keptRevision('closing')).toBe(20n);
  });

  it('leaves nothing stored when the session is erased while its snapshot is being written', async () => {
    const session = heldSession('erased', 5);
    const storage = new InMemorySnapshotStorage();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const gated = Object.assign(Object.create(storage) as InMemorySnapshotStorage, {
      save: async (row: SessionSnapshotRow) => {
        await gate;
        await storage.save(row);
      },
    });
    const saver = new SnapshotSaver(gated, COUNTER_KEY, () => [], { minEntries: 1 });
    saver.evicted(session.view);
    let forgotten = false;
    const forgetting = saver.forget('erased').then(() => (forgotten = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(forgotten).toBe(false); // waits for the write in flight
    release();
    await forgetting;
    expect(await storage.load('erased')).toBeUndefined();
  });
});
