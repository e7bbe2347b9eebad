import {
  SessionImportConflictError,
  serializeSessionFile,
  sessionStreamName,
  type SessionEntry,
  type SessionEvent,
  type SessionHeader,
} from '@strata/session';
import { session } from '@strata/testing';
import {
  derivedEventId,
  type EventStore,
  InMemoryEventStore,
  type RecordedEvent,
  sessionIdSeed,
  SqliteEventStore,
} from '@strata/event-store';
import { sealingAppender, verifyStream } from '@strata/integrity';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  InvalidStoredEventError,
  SessionImportError,
  SessionNotFoundError,
  exportSession,
  importSessionFile,
  importedEventId,
  loadSession,
  PROGRESS_INTERVAL,
  type ImportProgress,
} from '.';

const builder = session({ sessionId: 'a1b2c3' })
  .user('Why does the date test fail?')
  .assistantToolCalls([{ name: 'read', arguments: { path: 'tests/date.test.ts' } }])
  .toolResult('read', 'expect(fmt(d)).toBe("2024-01-01")')
  .assistant('It depends on the time zone.');
builder.label(builder.entries[0]!.id, 'start');
const sessionText = serializeSessionFile(builder.header, builder.entries);

async function recorded(store: EventStore, sessionId: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(sessionStreamName(sessionId))) events.push(event);
  return events;
}

function fileOf(header: SessionHeader, entries: readonly SessionEntry[], extraLines: string[] = []): string {
  return serializeSessionFile(header, entries) + extraLines.map((line) => `${line}\n`).join('');
}

describe('importSessionFile', () => {
  describe('given an empty store', () => {
    it('writes SessionStarted and one EntryAppended per entry to session-<id>, and exports the same file', async () => {
      const store = new InMemoryEventStore();
      const report = await importSessionFile(store, sessionText, { actor: 'tester', tenant: 'acme' });
      expect(report).toMatchObject({
        sessionId: 'a1b2c3',
        streamId: 'session-a1b2c3',
        outcome: 'imported',
        entryCount: 5,
        eventsWritten: 6,
        revision: 5n,
        skipped: [],
      });
      const events = await recorded(store, 'a1b2c3');
      expect(events.map((event) => event.type)).toEqual([
        'SessionStarted',
        ...builder.entries.map(() => 'EntryAppended'),
      ]);
      expect(events[1]!.metadata).toMatchObject({ actor: 'tester', tenant: 'acme', schemaVersion: 1 });
      expect(await verifyStream(store, 'session-a1b2c3')).toEqual(
        expect.objectContaining({ ok: true, events: 6 }),
      );
      expect(await exportSession(store, 'a1b2c3')).toBe(sessionText);
    });

    it('derives event ids from the session id and the entry ids', async () => {
      const store = new InMemoryEventStore();
      await importSessionFile(store, sessionText);
      const events = await recorded(store, 'a1b2c3');
      expect(events[1]!.id).toBe(
        derivedEventId(sessionIdSeed('a1b2c3', 'import-entry', builder.entries[0]!.id), 0),
      );
    });

    it('never gives two sessions the same event id, however their ids and entry ids are cut', () => {
      const entryEvent = (entryId: string): SessionEvent => ({
        type: 'EntryAppended',
        data: { entry: { ...builder.entries[0]!, id: entryId } },
      });
      const leafEvent = (leafId: string | null): SessionEvent => ({
        type: 'LeafMoved',
        data: { leafId, previousLeafId: null },
      });
      const ids = [
        importedEventId('x', entryEvent('y/entry/z')),
        importedEventId('x/entry/y', entryEvent('z')),
        importedEventId('x', leafEvent(null)),
        importedEventId('x', leafEvent('null')),
        importedEventId('x/leaf/null', entryEvent('e')),
      ];
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('imports a v1 file migrated to v3, and exports the migrated file', async () => {
      const store = new InMemoryEventStore();
      const v1 = [
        JSON.stringify({ type: 'session', id: 'old-1', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/w' }),
        JSON.stringify({
          type: 'message',
          timestamp: '2025-01-01T00:00:01.000Z',
          message: { role: 'user', content: 'hi', timestamp: 1 },
        }),
        '',
      ].join('\n');
      const report = await importSessionFile(store, v1);
      expect(report).toMatchObject({ sessionId: 'old-1', sourceVersion: 1, migrated: true, entryCount: 1 });
      const exported = await exportSession(store, 'old-1');
      expect(JSON.parse(exported.split('\n')[0]!)).toMatchObject({
        type: 'session',
        version: 3,
        id: 'old-1',
      });
      expect(JSON.parse(exported.split('\n')[1]!)).toMatchObject({ type: 'message', parentId: null });
    });

    it('reports progress after parsing', async () => {
      const progress: ImportProgress[] = [];
      await importSessionFile(new InMemoryEventStore(), sessionText, {
        onProgress: (step) => progress.push(step),
      });
      expect(progress).toEqual([{ kind: 'parsed', sessionId: 'a1b2c3', entryCount: 5 }]);
    });
  });

  describe('given a long session', () => {
    it('reports progress every interval of events prepared (10,000 by default)', async () => {
      expect(PROGRESS_INTERVAL).toBe(10_000);
      const header = { ...builder.header, id: 'long-1' };
      const entries: SessionEntry[] = Array.from({ length: 250 }, (_, index) => ({
        type: 'custom',
        customType: 'tick',
        id: `t${index}`,
        parentId: index === 0 ? null : `t${index - 1}`,
        timestamp: '2025-01-01T00:00:00.000Z',
      }));
      const progress: ImportProgress[] = [];
      const report = await importSessionFile(new InMemoryEventStore(), fileOf(header, entries), {
        onProgress: (step) => progress.push(step),
        progressInterval: 100,
      });
      expect(report.eventsWritten).toBe(251);
      expect(progress).toEqual([
        { kind: 'parsed', sessionId: 'long-1', entryCount: 250 },
        { kind: 'prepared', sessionId: 'long-1', eventCount: 100 },
        { kind: 'prepared', sessionId: 'long-1', eventCount: 200 },
      ]);
    });
  });

  describe('given the same session already imported', () => {
    it('writes nothing and reports it unchanged', async () => {
      const store = new InMemoryEventStore();
      await importSessionFile(store, sessionText);
      const again = await importSessionFile(store, sessionText);
      expect(again).toMatchObject({ outcome: 'unchanged', eventsWritten: 0, revision: 5n });
      expect(await recorded(store, 'a1b2c3')).toHaveLength(6);
    });

    it('lets two concurrent imports of one file write it once (the loser re-reads or replays the same ids)', async () => {
      const store = new InMemoryEventStore();
      const reports = await Promise.all([
        importSessionFile(store, sessionText),
        importSessionFile(store, sessionText),
      ]);
      expect(reports.map((report) => report.revision)).toEqual([5n, 5n]);
      expect(await recorded(store, 'a1b2c3')).toHaveLength(6);
    });
  });

  describe('given a different session stored under the same id', () => {
    it('refuses with a conflict that says what differs, and writes nothing', async () => {
      const store = new InMemoryEventStore();
      await importSessionFile(store, sessionText);
      const edited = sessionText.replace('It depends on the time zone.', 'Something else.');
      await expect(importSessionFile(store, edited)).rejects.toThrow(/line 5 \(entry 4\) differs/);
      await expect(importSessionFile(store, edited)).rejects.toThrow(SessionImportConflictError);
      expect(await recorded(store, 'a1b2c3')).toHaveLength(6);
    });
  });

  describe('given a stored session whose file grew since (issue 15, item 1)', () => {
    const firstPart = fileOf(builder.header, builder.entries.slice(0, 2));

    it('appends the new entries in one append after the stored ones and says how many', async () => {
      const store = new InMemoryEventStore();
      await importSessionFile(store, firstPart);
      const before = await recorded(store, 'a1b2c3');
      const report = await importSessionFile(store, sessionText);
      expect(report).toMatchObject({ outcome: 'appended', appended: 3, entryCount: 5, revision: 5n });
      const after = await recorded(store, 'a1b2c3');
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.slice(before.length).map((event) => event.type)).toEqual(Array(3).fill('EntryAppended'));
      const correlations = after.map((event) => event.metadata.correlationId);
      expect(new Set(correlations.slice(before.length)).size).toBe(1);
      expect(correlations[before.length]).not.toBe(correlations[0]);
      expect(await exportSession(store, 'a1b2c3')).toBe(sessionText);
      expect((await verifyStream(store, 'session-a1b2c3')).ok).toBe(true);
    });

    it('refuses a file whose first lines changed, naming the line and entry id, and appends nothing', async () => {
      const store = new InMemoryEventStore();
      await importSessionFile(store, firstPart);
      const edited = sessionText.replace('Why does the date test fail?', 'Why?');
      const failure = importSessionFile(store, edited);
      await expect(failure).rejects.toMatchObject({
        name: 'SessionImportConflictError',
        firstDifference: { line: 2, entryIndex: 0, entryId: builder.entries[0]!.id },
        storedEntries: 2,
      });
      expect(await recorded(store, 'a1b2c3')).toHaveLength(3);
    });

    it('refuses a file shorter than its stored session', async () => {
      const store = new InMemoryEventStore();
      await importSessionFile(store, sessionText);
      await expect(importSessionFile(store, firstPart)).rejects.toThrow(
        "the store holds 5 entries, the file only 2 (the store's first 2)",
      );
    });

    it.each([
      ['in memory', () => new InMemoryEventStore()],
      ['on one SQLite file, two connections', undefined],
    ])('lets racing syncs of the file as it grows store every entry once (%s)', async (_name, makeStore) => {
      const directory = mkdtempSync(join(tmpdir(), 'strata-sync-race-'));
      try {
        const path = join(directory, 'race.db');
        const stores: EventStore[] = makeStore
          ? [makeStore()]
          : [new SqliteEventStore({ filename: path }), new SqliteEventStore({ filename: path })];
        const storeAt = (index: number) => stores[index % stores.length]!;
        await importSessionFile(storeAt(0), firstPart);
        const sizes = [3, 5, 4, 5, 3, 5];
        const reports = await Promise.all(
          sizes.map((size, index) =>
            importSessionFile(storeAt(index), fileOf(builder.header, builder.entries.slice(0, size))).catch(
              (error: unknown) => error,
            ),
          ),
        );
        // a sync that reads the store after a longer one stored more is refused, never half-written
        for (const report of reports) {
          if (report instanceof Error) expect(report).toBeInstanceOf(SessionImportConflictError);
        }
        const events = await recorded(storeAt(0), 'a1b2c3');
        expect(events.map((event) => event.type)).toEqual([
          'SessionStarted',
          ...Array(5).fill('EntryAppended'),
        ]);
        expect(await exportSession(storeAt(1), 'a1b2c3')).toBe(sessionText);
        expect((await verifyStream(storeAt(0), 'session-a1b2c3')).ok).toBe(true);
        for (const store of stores) if (store instanceof SqliteEventStore) await store.close();
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });
  });

  describe('given a part of a file (fromEntry, as strata watch sends it)', () => {
    const part = (from: number, to: number) => fileOf(builder.header, builder.entries.slice(from, to));

    it('appends what the store lacks, whatever the overlap, and refuses a gap', async () => {
      const store = new InMemoryEventStore();
      expect(await importSessionFile(store, part(0, 2), { fromEntry: 0 })).toMatchObject({
        outcome: 'imported',
        appended: 2,
        entryCount: 2,
      });
      expect(await importSessionFile(store, part(1, 4), { fromEntry: 1 })).toMatchObject({
        outcome: 'appended',
        appended: 2,
        entryCount: 4,
      });
      expect(await importSessionFile(store, part(2, 3), { fromEntry: 2 })).toMatchObject({
        outcome: 'unchanged',
        appended: 0,
      });
      await expect(importSessionFile(store, part(4, 5), { fromEntry: 5 })).rejects.toThrow(
        'the store holds 4 entries, fewer than the 5 before this part of the file',
      );
      expect((await importSessionFile(store, part(4, 5), { fromEntry: 4 })).appended).toBe(1);
      expect(await exportSession(store, 'a1b2c3')).toBe(sessionText);
    });
  });

  describe('given a file with a bad line', () => {
    const broken = fileOf(builder.header, builder.entries.slice(0, 2), ['{not json']).concat(
      fileOf(builder.header, builder.entries.slice(2)).split('\n').slice(1).join('\n'),
    );

    it('refuses it in strict mode, naming the line, and writes nothing', async () => {
      const store = new InMemoryEventStore();
      const failure = importSessionFile(store, broken);
      await expect(failure).rejects.toThrow(SessionImportError);
      await expect(importSessionFile(store, broken)).rejects.toMatchObject({ line: 4, code: 'bad-json' });
      expect(await store.streamRevision('session-a1b2c3')).toBeNull();
    });

    it('skips and reports the line in lenient mode', async () => {
      const store = new InMemoryEventStore();
      const report = await importSessionFile(store, broken, { lenient: true });
      expect(report.skipped).toEqual([expect.objectContaining({ line: 4, code: 'bad-json' })]);
      expect(report.entryCount).toBe(5);
    });
  });

  describe('given an entry whose parent is not in the file', () => {
    const orphan: SessionEntry = { ...builder.entries[3]!, id: 'orphan', parentId: 'missing' };
    const text = fileOf(builder.header, [...builder.entries.slice(0, 3), orphan]);

    it('refuses it in strict mode, naming the line', async () => {
      const store = new InMemoryEventStore();
      await expect(importSessionFile(store, text)).rejects.toMatchObject({
        line: 5,
        code: 'invalid-reference',
        message: expect.stringContaining('parent missing of entry orphan') as unknown,
      });
      expect(await store.streamRevision('session-a1b2c3')).toBeNull();
    });

    it('imports it as a root in lenient mode and reports the repair', async () => {
      const store = new InMemoryEventStore();
      const report = await importSessionFile(store, text, { lenient: true });
      expect(report.repaired).toEqual([expect.objectContaining({ line: 5, code: 'invalid-reference' })]);
      const loaded = await loadSession(store, 'a1b2c3');
      expect(loaded.entries[3]).toMatchObject({ id: 'orphan', parentId: null });
    });
  });
});

describe('loadSession', () => {
  it('folds the stream: header, entries, leaf, pruned results and revision', async () => {
    const store = new InMemoryEventStore();
    await importSessionFile(store, sessionText);
    const toolResultId = builder.entries[2]!.id;
    const lastEvent = (await recorded(store, 'a1b2c3')).at(-1);
    const events = [
      {
        id: derivedEventId('t', 0),
        type: 'ToolOutputsPruned',
        data: { prunedAt: 5, results: [{ entryId: toolResultId, tokens: 40 }], tokensSaved: 40 },
      },
      {
        id: derivedEventId('t', 1),
        type: 'LeafMoved',
        data: { leafId: builder.entries[1]!.id, previousLeafId: builder.entries[4]!.id },
      },
    ];
    await sealingAppender({
      store,
      streamId: 'session-a1b2c3',
      events,
      expectedRevision: lastEvent!.revision,
      lastEvent,
    });
    const loaded = await loadSession(store, 'a1b2c3');
    expect(loaded.header).toEqual(builder.header);
    expect(loaded.entries).toEqual(builder.entries);
    expect(loaded.leafId).toBe(builder.entries[1]!.id);
    expect(loaded.prunedResults.get(toolResultId)).toEqual({ prunedAt: 5, tokens: 40 });
    expect(loaded.revision).toBe(7n);
    expect(loaded.eventCount).toBe(8);
  });

  it('refuses an event that is not a valid session event, naming its revision and id', async () => {
    const store = new InMemoryEventStore();
    await importSessionFile(store, sessionText);
    const badId = derivedEventId('bad', 0);
    await store.appendToStream('session-a1b2c3', [
      { id: badId, type: 'EntryAppended', data: { entry: { type: 'message' } } },
    ]);
    const failure = loadSession(store, 'a1b2c3');
    await expect(failure).rejects.toThrow(InvalidStoredEventError);
    await expect(loadSession(store, 'a1b2c3')).rejects.toThrow(
      `event ${badId} at revision 6 of session-a1b2c3`,
    );
  });

  it('reports a session that is not stored', async () => {
    await expect(loadSession(new InMemoryEventStore(), 'nope')).rejects.toThrow(SessionNotFoundError);
    await expect(exportSession(new InMemoryEventStore(), 'nope')).rejects.toThrow(
      'session nope is not in the store',
    );
  });
});
