// The context projection's session snapshots (issue 22 item 4), on real SQLite files: a read
// after a restart that starts from a snapshot answers, byte for byte, what the events alone
// give — for the pi fixtures, a long generated session, and generated sessions with pruning,
// navigation and compactions written after the snapshot was taken; a snapshot is never used
// once its session was erased (by the projection, by the search index while no engine ran, or
// erased and written again), nor after a rebuild, nor when it does not read as a snapshot of
// this format; snapshots are written behind the work, and only of sessions within the bounds.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import * as fc from 'fast-check';
import { SqliteEventStore, type EventStore } from '@strata/event-store';
import { importSessionFile } from '@strata/session-files';
import {
  serializeSessionFile,
  sessionStreamName,
  type SessionEntry,
  type SessionEvent,
} from '@strata/session';
import { SessionBuilder, generatedSessionArbitrary } from '@strata/testing';
import { o200kTokenCounter } from '@strata/tokenizer';
import { readProjectedEvent } from '../runner/projected-event';
import { SearchProjection } from '../search/search-projection';
import { sqliteProjectionStorage, type ProjectionStorage } from '../storage/projection-storage';
import { extraActivityArbitrary, sessionEventsOf } from '../testing/session-events';
import { contextSessionFiles, longSession } from '../testing/long-session';
import { ContextProjection } from './context-projection';
import { SESSION_SNAPSHOT_FORMAT } from './session-snapshot';
import type { IgnoredSnapshotReport, SnapshotLimits } from './snapshot-saver';
import type { ProjectedContext } from './session-view';

const TEST_TIMEOUT_MS = 120_000;

interface Started {
  readonly store: EventStore;
  readonly storage: ProjectionStorage;
  readonly projection: ContextProjection;
  readonly ignored: IgnoredSnapshotReport[];
  stop(): Promise<void>;
}

interface StartOptions {
  /** Keep snapshots (and token counts); false: a projection that keeps nothing (the events alone). */
  readonly keeps?: boolean;
  readonly limits?: SnapshotLimits;
  readonly maxSessions?: number;
}

/** A store, storage and context projection over the file, as an engine start builds them. */
function start(file: string, options: StartOptions = {}): Started {
  const store = new SqliteEventStore({ filename: file });
  const storage = sqliteProjectionStorage(file);
  const ignored: IgnoredSnapshotReport[] = [];
  const keeps = options.keeps ?? true;
  const projection = new ContextProjection({
    store,
    tokenCounter: o200kTokenCounter,
    ...(keeps ? { tokenCounts: storage.tokenCounts, snapshots: storage.contextSnapshots } : {}),
    ...(options.limits !== undefined ? { snapshotLimits: options.limits } : {}),
    ...(options.maxSessions !== undefined ? { maxSessions: options.maxSessions } : {}),
    onSnapshotIgnored: (report) => ignored.push(report),
  });
  return {
    store,
    storage,
    projection,
    ignored,
    stop: async () => {
      await projection.close();
      await storage.close();
      await store.close();
    },
  };
}

/** The context as JSON text (what the engine answers is built from it). */
function text(context: ProjectedContext): string {
  return JSON.stringify({
    ...context,
    revision: String(context.revision),
    position: String(context.position),
  });
}

/** The context at `leafId` from the events alone (a projection that keeps nothing). */
async function fromEvents(file: string, sessionId: string, leafId?: string | null): Promise<string> {
  const started = start(file, { keeps: false });
  try {
    return text(await started.projection.contextAt(sessionId, leafId));
  } finally {
    await started.stop();
  }
}

/** Reads the session's context once with snapshots kept, then stops (which snapshots it). */
async function readAndStop(file: string, sessionId: string, limits?: SnapshotLimits) {
  const started = start(file, limits !== undefined ? { limits } : {});
  try {
    const context = text(await started.projection.contextAt(sessionId));
    await started.projection.close();
    return { context, stats: started.projection.stats(), ignored: started.ignored };
  } finally {
    await started.stop();
  }
}

async function appendWithHashes(
  store: EventStore,
  sessionId: string,
  events: readonly SessionEvent[],
  reviveErased = false,
) {
  for (const [index, event] of events.entries()) {
    await store.appendToStream(
      sessionStreamName(sessionId),
      [
        {
          id: randomBytes(16).toString('hex'),
          type: event.type,
          data: event.data,
          metadata: { hash: randomBytes(32).toString('hex') },
        },
      ],
      reviveErased && index === 0 ? { reviveErased: true } : {},
    );
  }
}

const appended = (entry: SessionEntry): SessionEvent => ({ type: 'EntryAppended', data: { entry } });

function withFile(name: string): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-snapshots-'));
  return path.join(directory, name);
}

async function importInto(file: string, content: string): Promise<string> {
  const store = new SqliteEventStore({ filename: file });
  try {
    return (await importSessionFile(store, content)).sessionId;
  } finally {
    await store.close();
  }
}

const fileOf = (builder: SessionBuilder) => serializeSessionFile(builder.header, builder.entries);

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const sessionFiles = contextSessionFiles;

describe('a context read from a session snapshot', () => {
  it.each(sessionFiles)(
    '$name: equals the context from the events, at the current leaf and others, and the tree',
    async ({ text: content }) => {
      const session = content();
      if (session === undefined) return; // the fixtures' own spec reports a missing fixture
      const file = withFile('strata.db');
      const sessionId = await importInto(file, session);
      const expected = await fromEvents(file, sessionId);

      const first = await readAndStop(file, sessionId);
      expect(first.context).toBe(expected);
      expect(first.stats.snapshots).toMatchObject({ saved: 1, used: 0 });

      const reference = start(file, { keeps: false });
      const started = start(file);
      try {
        expect(text(await started.projection.contextAt(sessionId))).toBe(expected);
        expect(started.projection.stats().snapshots).toMatchObject({ used: 1, ignored: 0 });
        const parsed = JSON.parse(expected) as { context: { entryIds: (string | null)[] } };
        const entryIds = parsed.context.entryIds.filter((id): id is string => id !== null);
        for (const leafId of [entryIds[Math.floor(entryIds.length / 2)], entryIds[1], null]) {
          expect(text(await started.projection.contextAt(sessionId, leafId))).toBe(
            text(await reference.projection.contextAt(sessionId, leafId)),
          );
        }
        expect(started.projection.stats().weight).toBe(reference.projection.stats().weight);
        expect(await started.projection.sessionTree(sessionId)).toEqual(
          await reference.projection.sessionTree(sessionId),
        );
      } finally {
        await reference.stop();
        await started.stop();
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'equals the events after further appends, a leaf moved back, a compaction and pruning',
    async () => {
      const file = withFile('strata.db');
      const builder = longSession();
      const sessionId = await importInto(file, fileOf(builder));
      await readAndStop(file, sessionId);

      const store = new SqliteEventStore({ filename: file });
      const branchPoint = builder.entries[500]?.id ?? null;
      const toolResult = builder.entries
        .slice(-60)
        .find((entry) => entry.type === 'message' && entry.message.role === 'toolResult');
      builder.editTurns(5, { first: 750 });
      const tail = builder.entries.slice(-20);
      builder.branchFrom(branchPoint).editTurns(3, { first: 800 });
      const keptFrom = builder.entries[builder.entries.length - 4]?.id ?? '';
      builder.compaction({ firstKeptEntryId: keptFrom, tokensBefore: 50_000, summary: 'Branched back.' });
      builder.editTurns(2, { first: 810 });
      const branch = builder.entries.slice(-(12 + 1 + 8));
      await appendWithHashes(store, sessionId, [
        ...tail.map(appended),
        {
          type: 'LeafMoved',
          data: { leafId: branchPoint, previousLeafId: tail[tail.length - 1]?.id ?? null },
        },
        ...branch.map(appended),
        {
          type: 'ToolOutputsPruned',
          data: {
            prunedAt: 1_700_000_000_000,
            results: [{ entryId: toolResult?.id ?? '', tokens: 321 }],
            tokensSaved: 321,
          },
        },
      ]);
      await store.close();

      const expected = await fromEvents(file, sessionId);
      const second = await readAndStop(file, sessionId);
      expect(second.context).toBe(expected);
      expect(second.stats.snapshots).toMatchObject({ used: 1, saved: 1 });
      expect(await fromEvents(file, sessionId, tail[tail.length - 1]?.id)).toBe(
        await (async () => {
          const started = start(file);
          try {
            return text(await started.projection.contextAt(sessionId, tail[tail.length - 1]?.id));
          } finally {
            await started.stop();
          }
        })(),
      );
      const third = await readAndStop(file, sessionId);
      expect(third.context).toBe(expected);
      expect(third.stats.snapshots).toMatchObject({ used: 1, saved: 0 });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'equals the events for generated sessions with pruning, navigation and compactions after the snapshot',
    async () => {
      const samples = fc.sample(
        fc.tuple(
          generatedSessionArbitrary({ maxSteps: 40 }),
          fc.array(extraActivityArbitrary, { maxLength: 12 }),
          fc.double({ min: 0.1, max: 0.9, noNaN: true }),
        ),
        { numRuns: 8, seed: 4 },
      );
      const limits = { minEntries: 1 };
      for (const [index, [session, extras, split]] of samples.entries()) {
        const file = withFile(`generated-${index}.db`);
        const events = sessionEventsOf(session, extras);
        const cut = Math.max(2, Math.floor(events.length * split));
        const store = new SqliteEventStore({ filename: file });
        await appendWithHashes(store, session.header.id, events.slice(0, cut));
        await store.close();
        const before = await readAndStop(file, session.header.id, limits);
        expect(before.context).toBe(await fromEvents(file, session.header.id));

        const more = new SqliteEventStore({ filename: file });
        await appendWithHashes(more, session.header.id, events.slice(cut));
        await more.close();
        const after = await readAndStop(file, session.header.id, limits);
        expect(after.context).toBe(await fromEvents(file, session.header.id));
        expect(after.stats.snapshots?.used).toBe(before.stats.snapshots?.saved);
      }
    },
    TEST_TIMEOUT_MS,
  );
});

describe('a snapshot that must not be used', () => {
  async function snapshotted(entries = 60) {
    const file = withFile('strata.db');
    const sessionId = await importInto(
      file,
      fileOf(new SessionBuilder({ sessionId: 'kept' }).editTurns(entries / 4)),
    );
    const limits = { minEntries: 1 };
    await readAndStop(file, sessionId, limits);
    return { file, sessionId, limits };
  }

  const stored = async (file: string, sessionId: string) => {
    const storage = sqliteProjectionStorage(file);
    try {
      return await storage.contextSnapshots?.load(sessionId);
    } finally {
      await storage.close();
    }
  };

  it('is deleted when the projection erases its session, and not written again by a write queued before', async () => {
    const { file, sessionId } = await snapshotted();
    const other = await importInto(file, fileOf(new SessionBuilder({ sessionId: 'other' }).editTurns(10)));
    const started = start(file, { limits: { minEntries: 1 }, maxSessions: 1 });
    try {
      const store = started.store;
      await appendWithHashes(store, sessionId, [
        appended(new SessionBuilder({ sessionId }).editTurns(16).entries[60] as SessionEntry),
      ]);
      await started.projection.contextAt(sessionId);
      await started.projection.contextAt(other); // evicts the session, whose newer snapshot is queued
      await started.projection.erase(sessionId);
      await started.projection.close();
    } finally {
      await started.stop();
    }
    expect(await stored(file, sessionId)).toBeUndefined();
    expect(await stored(file, other)).toBeDefined();
  });

  it('is deleted when the durable search index reads the erasure (the context projection did not run then)', async () => {
    const { file, sessionId } = await snapshotted();
    expect(await stored(file, sessionId)).toBeDefined();
    const storage = sqliteProjectionStorage(file);
    await new SearchProjection(storage.search).erase(sessionId);
    await storage.close();
    expect(await stored(file, sessionId)).toBeUndefined();
  });

  it('is not used for a session erased and written again under the same id while it was kept', async () => {
    const { file, sessionId, limits } = await snapshotted();
    const store = new SqliteEventStore({ filename: file });
    await store.eraseStream(sessionStreamName(sessionId), { actor: 'test', reason: 'a test erasure' });
    // Longer than the erased one, so that its stream holds an event at the snapshot's revision.
    const again = new SessionBuilder({ sessionId }).editTurns(20).user('a new session under the old id');
    await appendWithHashes(
      store,
      sessionId,
      [{ type: 'SessionStarted', data: { header: again.header } }, ...again.entries.map(appended)],
      true,
    );
    await store.close();
    expect(await stored(file, sessionId)).toBeDefined();

    const read = await readAndStop(file, sessionId, limits);
    expect(read.context).toBe(await fromEvents(file, sessionId));
    expect(JSON.parse(read.context).context.messages).toHaveLength(81);
    expect(read.stats.snapshots).toMatchObject({ used: 0, ignored: 1 });
    expect(read.ignored).toEqual([{ sessionId, reason: expect.stringMatching(/no longer holds/) as string }]);
  });

  it('is not used for an erased session: the read answers that it is not found', async () => {
    const { file, sessionId } = await snapshotted();
    const store = new SqliteEventStore({ filename: file });
    await store.eraseStream(sessionStreamName(sessionId), { actor: 'test', reason: 'a test erasure' });
    await store.close();
    const started = start(file);
    try {
      await expect(started.projection.contextAt(sessionId)).rejects.toMatchObject({
        name: 'SessionNotFoundError',
      });
      expect(started.projection.stats().snapshots).toMatchObject({ used: 0, ignored: 1 });
    } finally {
      await started.stop();
    }
  });

  it('is deleted by a rebuild (reset) of the projection', async () => {
    const { file, sessionId } = await snapshotted();
    const started = start(file);
    await started.projection.reset();
    await started.stop();
    expect(await stored(file, sessionId)).toBeUndefined();
  });

  const unusable: readonly { readonly name: string; readonly sql: string; readonly reason: RegExp }[] = [
    {
      name: 'of an older format',
      sql: 'UPDATE projection_context_snapshots SET format = 0',
      reason: /format 0/,
    },
    {
      name: 'whose text is of a newer format',
      sql: `UPDATE projection_context_snapshots SET body = replace(body, '"format":${SESSION_SNAPSHOT_FORMAT}', '"format":99')`,
      reason: /format 99/,
    },
    {
      name: 'cut short',
      sql: 'UPDATE projection_context_snapshots SET body = substr(body, 1, length(body) / 2)',
      reason: /not JSON/,
    },
    {
      name: 'not JSON at all',
      sql: "UPDATE projection_context_snapshots SET body = 'garbage'",
      reason: /not JSON/,
    },
    {
      name: 'counted with another counter',
      sql: `UPDATE projection_context_snapshots SET body = replace(body, '"counterKey":"o200k/v1"', '"counterKey":"chars4/v1"')`,
      reason: /counted with chars4/,
    },
    {
      name: 'with an entry that has no id',
      sql: `UPDATE projection_context_snapshots SET body = replace(body, '"id":"', '"di":"')`,
      reason: /without an id/,
    },
    {
      name: 'with counts that do not match its entries',
      sql: `UPDATE projection_context_snapshots SET body = replace(body, '"counts":[', '"counts":[1,')`,
      reason: /do not match/,
    },
  ];

  it.each(unusable)(
    '$name is ignored and reported, the answer comes from the events, and it is mended',
    async ({ sql, reason }) => {
      const { file, sessionId, limits } = await snapshotted();
      const database = new Database(file);
      database.exec(sql);
      database.close();

      const read = await readAndStop(file, sessionId, limits);
      expect(read.context).toBe(await fromEvents(file, sessionId));
      expect(read.stats.snapshots).toMatchObject({ used: 0, ignored: 1, saved: 1 });
      expect(read.ignored).toEqual([{ sessionId, reason: expect.stringMatching(reason) as string }]);
      expect((await readAndStop(file, sessionId, limits)).stats.snapshots).toMatchObject({
        used: 1,
        ignored: 0,
      });
    },
  );
});

describe('when snapshots are taken', () => {
  it('never on an event applied: a sweep takes them once the session is idle (and far enough ahead)', async () => {
    const file = withFile('strata.db');
    const builder = new SessionBuilder({ sessionId: 'live' }).editTurns(10);
    const sessionId = await importInto(file, fileOf(builder));
    const started = start(file, { limits: { minEntries: 1, sweepMs: 5, idleEvents: 4 } });
    const saved = () => started.projection.stats().snapshots?.saved ?? 0;
    try {
      await started.projection.contextAt(sessionId);
      await until(() => saved() === 1, 'the idle session to be snapshotted');
      builder.editTurns(1, { first: 10 });
      await appendWithHashes(started.store, sessionId, builder.entries.slice(-4).map(appended));
      for await (const recorded of started.store.readStream(sessionStreamName(sessionId), {
        fromRevision: 41n,
      })) {
        const projected = readProjectedEvent(recorded);
        if (projected.kind === 'invalid') throw new Error(projected.report.detail);
        await started.projection.apply(projected.event);
        expect(saved()).toBe(1);
      }
      await until(() => saved() === 2, 'the changed session to be snapshotted again once idle');
      const kept = await started.storage.contextSnapshots?.load(sessionId);
      expect(kept?.position).toBe((await started.projection.contextAt(sessionId)).position);
    } finally {
      await started.stop();
    }
  });

  it('of a session evicted from memory', async () => {
    const file = withFile('strata.db');
    const first = await importInto(file, fileOf(new SessionBuilder({ sessionId: 'first' }).editTurns(10)));
    const second = await importInto(file, fileOf(new SessionBuilder({ sessionId: 'second' }).editTurns(10)));
    const started = start(file, { limits: { minEntries: 1 }, maxSessions: 1 });
    try {
      await started.projection.contextAt(first);
      await started.projection.contextAt(second);
      await until(
        async () => (await started.storage.contextSnapshots?.load(first)) !== undefined,
        'the evicted session to be snapshotted',
      );
    } finally {
      await started.stop();
    }
  });

  it('not of sessions below the minimum of entries or above the maximum weight', async () => {
    const file = withFile('strata.db');
    const sessionId = await importInto(
      file,
      fileOf(new SessionBuilder({ sessionId: 'small' }).editTurns(10)),
    );
    expect((await readAndStop(file, sessionId)).stats.snapshots).toMatchObject({ saved: 0 });
    const heavy = await readAndStop(file, sessionId, { minEntries: 1, maxWeight: 39 });
    expect(heavy.stats.snapshots).toMatchObject({ saved: 0, tooLarge: 1 });
    const storage = sqliteProjectionStorage(file);
    expect(await storage.contextSnapshots?.load(sessionId)).toBeUndefined();
    await storage.close();
  });
});
