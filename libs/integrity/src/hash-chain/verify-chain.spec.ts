import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryEventStore, SqliteEventStore, type RecordedEvent } from '@strata/event-store';
import { appendChained } from '../testing/append-chained';
import { eventHash, sealEvents } from './event-seal';
import { verifyAll, verifyStream } from './verify-chain';

const context = { tenant: 'acme', actor: 'ana', correlationId: 'corr-1' };
const SECRET = 'diagnosis-that-must-vanish';

describe('verifying hash chains in a SQLite store', () => {
  let directory: string;
  let filename: string;
  let store: SqliteEventStore;

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'strata-integrity-'));
    filename = join(directory, 'events.db');
    store = new SqliteEventStore({ filename });
    for (const text of ['hello', 'world', 'again', 'last']) {
      await appendChained(store, 'session-a', [{ id: `a-${text}`, type: 'message', data: { text } }], {
        context,
      });
    }
    await appendChained(
      store,
      'session-b',
      [
        { id: 'b-1', type: 'message', data: { text: SECRET } },
        { id: 'b-2', type: 'message', data: { text: 'more' } },
      ],
      { context },
    );
  });

  afterEach(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** Changes the database file directly, as an intruder with file access would. */
  function tamper(sql: string, ...parameters: string[]): void {
    const raw = new Database(filename);
    try {
      raw.prepare(sql).run(...parameters);
    } finally {
      raw.close();
    }
  }

  describe('given untouched streams', () => {
    it('verifies each stream and the whole store', async () => {
      expect(await verifyStream(store, 'session-a')).toMatchObject({ ok: true, events: 4 });
      expect(await verifyStream(store, 'missing')).toEqual({ ok: true, events: 0, headHash: null });
      expect(await verifyAll(store)).toEqual({ ok: true, streams: 2, events: 6, broken: [] });
    });
  });

  describe('given one event whose data was changed in the file', () => {
    it('names exactly that event, and only its stream is broken', async () => {
      tamper(`UPDATE events SET data = '{"text":"forged"}' WHERE event_id = ?`, 'a-world');
      expect(await verifyStream(store, 'session-a')).toEqual({
        ok: false,
        brokenAt: { revision: 1n, eventId: 'a-world', reason: 'hash_mismatch' },
        verifiedEvents: 1,
      });
      const all = await verifyAll(store);
      expect(all.ok).toBe(false);
      expect(all.broken).toEqual([
        { streamId: 'session-a', revision: 1n, eventId: 'a-world', reason: 'hash_mismatch' },
      ]);
      expect(await verifyStream(store, 'session-b')).toMatchObject({ ok: true, events: 2 });
    });
  });

  describe('given the stored time of an event changed in the file', () => {
    it('names the event: its stored time is not the time sealed in it', async () => {
      tamper(`UPDATE events SET created_at = '2001-01-01T00:00:00.000Z' WHERE event_id = ?`, 'a-again');
      expect(await verifyStream(store, 'session-a')).toMatchObject({
        ok: false,
        brokenAt: { revision: 2n, eventId: 'a-again', reason: 'time_mismatch' },
      });
      expect((await verifyAll(store)).broken).toEqual([
        { streamId: 'session-a', revision: 2n, eventId: 'a-again', reason: 'time_mismatch' },
      ]);
    });

    it('names the event whose stored and sealed times were both changed (its hash no longer holds)', async () => {
      tamper(
        `UPDATE events SET created_at = '2001-01-01T00:00:00.000Z',
           metadata = json_set(metadata, '$.recordedAt', '2001-01-01T00:00:00.000Z') WHERE event_id = ?`,
        'a-again',
      );
      expect(await verifyStream(store, 'session-a')).toMatchObject({
        ok: false,
        brokenAt: { revision: 2n, eventId: 'a-again', reason: 'hash_mismatch' },
      });
    });
  });

  describe('given an event sealed, by a writer that forged the floor, earlier than the one before it', () => {
    it('names the stream whose times go backwards', async () => {
      let last: RecordedEvent | undefined;
      for await (const event of store.readStream('session-a', { direction: 'backwards', maxCount: 1 }))
        last = event;
      const forgedFloor = {
        ...last!,
        metadata: { ...last!.metadata, recordedAt: '2000-01-01T00:00:00.000Z' },
      };
      const sealed = sealEvents(
        'session-a',
        [{ id: 'a-back', type: 'message', data: { text: 'back' } }],
        forgedFloor,
        context,
        new Date('2000-01-02T00:00:00.000Z'),
      );
      await store.appendToStream('session-a', sealed, { expectedRevision: last!.revision });
      expect(await verifyStream(store, 'session-a')).toMatchObject({
        ok: false,
        brokenAt: { revision: 4n, eventId: 'a-back', reason: 'time_backwards' },
        verifiedEvents: 4,
      });
    });
  });

  describe('given a changed audit field', () => {
    it('names the event whose metadata was changed', async () => {
      tamper(
        `UPDATE events SET metadata = json_set(metadata, '$.actor', 'mallory') WHERE event_id = ?`,
        'a-again',
      );
      expect(await verifyStream(store, 'session-a')).toMatchObject({
        ok: false,
        brokenAt: { revision: 2n, eventId: 'a-again', reason: 'hash_mismatch' },
      });
    });
  });

  describe('given an event changed and re-hashed by someone who knows the scheme', () => {
    it('names the next event, whose link no longer matches', async () => {
      const raw = new Database(filename);
      try {
        raw.defaultSafeIntegers(true);
        const row = raw
          .prepare<[string], { metadata: string; stream_revision: bigint }>(
            'SELECT metadata, stream_revision FROM events WHERE event_id = ?',
          )
          .get('a-world')!;
        const metadata = JSON.parse(row.metadata) as Record<string, unknown>;
        const data = { text: 'forged' };
        const hash = eventHash({
          streamId: 'session-a',
          revision: row.stream_revision,
          id: 'a-world',
          type: 'message',
          data,
          metadata,
        });
        raw
          .prepare('UPDATE events SET data = ?, metadata = ? WHERE event_id = ?')
          .run(JSON.stringify(data), JSON.stringify({ ...metadata, hash }), 'a-world');
      } finally {
        raw.close();
      }
      expect(await verifyStream(store, 'session-a')).toMatchObject({
        ok: false,
        brokenAt: { revision: 2n, eventId: 'a-again', reason: 'previous_hash_mismatch' },
      });
    });
  });

  describe('given an event deleted from the file', () => {
    it('names the event after the gap', async () => {
      tamper('DELETE FROM events WHERE event_id = ?', 'a-world');
      expect(await verifyStream(store, 'session-a')).toMatchObject({
        ok: false,
        brokenAt: { revision: 2n, eventId: 'a-again', reason: 'revision_gap' },
      });
    });
  });

  describe('given an erased stream', () => {
    it('still verifies, keeps the audit record, and leaves no content in any table', async () => {
      await store.eraseStream('session-b', { actor: 'dpo', reason: 'erasure request 7', tenant: 'acme' });
      expect(await verifyAll(store)).toEqual({ ok: true, streams: 1, events: 4, broken: [] });
      expect(await store.listErasures('session-b')).toEqual([
        expect.objectContaining({ streamId: 'session-b', actor: 'dpo', eventCount: 2 }),
      ]);
      const raw = new Database(filename, { readonly: true });
      try {
        const tables = raw
          .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
          .all()
          .map((row) => row.name);
        for (const table of tables) {
          const rows = JSON.stringify(raw.prepare(`SELECT * FROM "${table}"`).raw().all());
          expect(rows).not.toContain(SECRET);
        }
        expect(raw.prepare("SELECT count(*) FROM events WHERE stream_id = 'session-b'").pluck().get()).toBe(
          0,
        );
        expect(raw.prepare("SELECT count(*) FROM erasures WHERE stream_id = 'session-b'").pluck().get()).toBe(
          1,
        );
      } finally {
        raw.close();
      }
    });
  });
});

describe('verifyAll', () => {
  it('reports a stream whose events carry no seal', async () => {
    const store = new InMemoryEventStore();
    await store.appendToStream('plain', [{ id: 'p', type: 't', data: {} }]);
    expect((await verifyAll(store)).broken).toEqual([
      { streamId: 'plain', revision: 0n, eventId: 'p', reason: 'missing_seal' },
    ]);
  });

  it('verifies only the streams its filter selects', async () => {
    const store = new InMemoryEventStore();
    await store.appendToStream('plain', [{ id: 'p', type: 't', data: {} }]);
    await appendChained(store, 'session-1', [{ id: 's', type: 't', data: {} }], { context });
    expect(await verifyAll(store, { filter: { streamPrefixes: ['session-'] } })).toMatchObject({
      ok: true,
      streams: 1,
    });
  });
});
