import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore, type EventToAppend } from '@strata/event-store';
import { anchorLogOf } from '../anchors/anchor-log';
import { anchorStreamHead } from '../anchors/anchor-scheduler';
import { generateAnchorSigningKey } from '../anchors/signing-key';
import { signAnchor, type AnchorSigningKey } from '../anchors/anchor';
import { SQLITE_LEGACY_ANCHOR_SCHEMA } from './sqlite-log-writes';
import { appendChained } from '../testing/append-chained';
import { sealEvents } from '../hash-chain/event-seal';
import { describeLogFinding } from './log-findings';
import { MAX_CHECKPOINT_STREAM_LENGTH, MAX_LOG_LINE_BYTES, signLogEntry, type LogEntry } from './log-entry';
import { eraseSigned } from './signed-erasure';
import { writeCheckpoint } from './store-checkpoints';
import { verifyStoreWithLog, type LoggedStoreVerification } from './verify-store';
import { logFileCandidates, logFileItems } from './log-files';
import { compareWithExport } from './verify-store-log';
import { writeFileSync } from 'node:fs';

const entry = (id: string): EventToAppend => ({ id, type: 'message', data: { text: id } });

let directory: string;
let filename: string;
let key: AnchorSigningKey;
let keys: Map<string, { keyId: string; publicKey: AnchorSigningKey['publicKey'] }>;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-store-log-'));
  filename = join(directory, 'strata.db');
  key = generateAnchorSigningKey();
  keys = new Map([[key.keyId, { keyId: key.keyId, publicKey: key.publicKey }]]);
});

afterEach(() => rmSync(directory, { recursive: true, force: true }));

/** Three sessions written and anchored, a checkpoint, then a fourth session and a second checkpoint. */
async function writtenStore(): Promise<void> {
  const store = new SqliteEventStore({ filename });
  const log = anchorLogOf(store);
  for (const name of ['a', 'b', 'c']) {
    const streamId = `session-${name}`;
    await appendChained(store, streamId, [entry(`${name}1`), entry(`${name}2`)]);
    await anchorStreamHead(store, streamId, key, log);
  }
  await writeCheckpoint(store, log, key);
  await appendChained(store, 'session-d', [entry('d1')]);
  await appendChained(store, 'session-b', [entry('b3')]);
  await writeCheckpoint(store, log, key);
  await store.close();
}

async function verified(exported?: string): Promise<LoggedStoreVerification> {
  const store = new SqliteEventStore({ filename });
  try {
    return await verifyStoreWithLog(store, {
      keys,
      ...(exported !== undefined ? { exported: logFileCandidates(exported, 'exported') } : {}),
    });
  } finally {
    await store.close();
  }
}

function sql(statements: string, ...parameters: unknown[]): void {
  const database = new Database(filename);
  try {
    if (parameters.length === 0) database.exec(statements);
    else database.prepare(statements).run(...parameters);
  } finally {
    database.close();
  }
}

function findings(result: LoggedStoreVerification): string[] {
  return [
    ...result.log.findings.map((finding) => finding.kind),
    ...result.streams.failed.flatMap((stream) =>
      stream.findings.map((finding) => `${finding.kind}:${stream.streamId}`),
    ),
  ];
}

async function exportLog(path: string): Promise<void> {
  const store = new SqliteEventStore({ filename });
  const lines: string[] = [];
  for await (const item of anchorLogOf(store).entries()) {
    if (item.source === 'chained') lines.push(JSON.stringify(item.entry));
  }
  await store.close();
  writeFileSync(path, `${lines.join('\n')}\n`);
}

describe('the signed log of a SQLite store', () => {
  describe('given an untouched store', () => {
    it('verifies: the chain holds, every checkpoint head is matched, the newest checkpoint covers everything', async () => {
      await writtenStore();
      const result = await verified();
      expect(findings(result)).toEqual([]);
      expect(result.ok).toBe(true);
      expect(result.log.chained).toBe(true);
      expect(result.log.newestCheckpoint).toMatchObject({ streams: 4, events: '8', eventsAfter: 0 });
      // three anchors, the first checkpoint's three heads, the second's two (session-b and session-d)
      expect(result.streams.anchorsMatched).toBe(3 + 3 + 2);
    });
  });

  describe('given an entry deleted from the middle of the log', () => {
    it('names the missing positions', async () => {
      await writtenStore();
      sql('DELETE FROM store_log WHERE position = 2');
      const result = await verified();
      expect(result.ok).toBe(false);
      expect(findings(result)).toEqual(['log_gap']);
      expect(describeLogFinding(result.log.findings[0]!)).toContain('positions 2–2 are missing');
    });
  });

  describe('given an entry edited in place', () => {
    it('refuses it: its content no longer hashes to its hash', async () => {
      await writtenStore();
      sql(
        'UPDATE store_log SET entry = replace(entry, \'"revision":"1"\', \'"revision":"0"\') WHERE position = 1',
      );
      expect(findings(await verified())).toContain('log_entry_refused');
    });
  });

  describe('given a session deleted whole: its events, its record and its log entries', () => {
    it('is named by the checkpoint that recorded its head, and the log shows the gap', async () => {
      await writtenStore();
      sql(`DELETE FROM events WHERE stream_id = 'session-a';
           DELETE FROM streams WHERE stream_id = 'session-a';
           DELETE FROM store_log WHERE stream_id = 'session-a';`);
      const result = await verified();
      expect(findings(result)).toEqual(['log_gap', 'anchor_not_reached:session-a']);
    });
  });

  describe('given a checkpoint forged at the log end with a foreign key', () => {
    it('refuses it for its key', async () => {
      await writtenStore();
      const database = new Database(filename);
      const last = database
        .prepare('SELECT position, entry_hash FROM store_log ORDER BY position DESC LIMIT 1')
        .get() as {
        position: number;
        entry_hash: string;
      };
      const forged: LogEntry = signLogEntry(
        {
          kind: 'checkpoint',
          fromStorePosition: '-1',
          storePosition: '0',
          streams: 0,
          events: '0',
          heads: [],
          erased: [],
          part: 1,
          parts: 1,
        },
        {
          position: String(last.position + 1),
          previousHash: last.entry_hash,
          time: new Date().toISOString(),
        },
        generateAnchorSigningKey(),
      );
      database
        .prepare(
          'INSERT INTO store_log (position, kind, stream_id, tenant, entry_hash, entry) VALUES (?, ?, NULL, NULL, ?, ?)',
        )
        .run(last.position + 1, 'checkpoint', forged.hash, JSON.stringify(forged));
      database.close();
      const result = await verified();
      expect(result.log.findings).toEqual([
        expect.objectContaining({ kind: 'log_entry_refused', reason: 'unknown_key' }),
      ]);
    });
  });

  describe('given the log cut at its end', () => {
    it('passes with the store alone, saying what the newest checkpoint no longer covers, and is caught against an exported copy', async () => {
      await writtenStore();
      const exported = join(directory, 'log.jsonl');
      await exportLog(exported);
      sql(
        "DELETE FROM store_log WHERE kind = 'checkpoint' AND position = (SELECT max(position) FROM store_log)",
      );
      const alone = await verified();
      expect(alone.ok).toBe(true);
      expect(alone.log.newestCheckpoint).toMatchObject({ eventsAfter: 2 });
      const store = new SqliteEventStore({ filename });
      const compared = await compareWithExport(anchorLogOf(store), logFileItems(exported));
      await store.close();
      expect(compared).toEqual([expect.objectContaining({ kind: 'log_truncated' })]);
    });
  });

  describe('given streams whose ids are long, many of them written in one interval', () => {
    it('writes the checkpoint in parts that each fit one exported line, and verifies', async () => {
      const store = new SqliteEventStore({ filename });
      const long = (index: number): string => `stream-${index}-${'x'.repeat(10_000)}`;
      for (let index = 0; index < 120; index += 1)
        await appendChained(store, long(index), [entry(`l${index}`)]);
      const beyond = `stream-${'y'.repeat(MAX_CHECKPOINT_STREAM_LENGTH)}`;
      await appendChained(store, beyond, [entry('beyond')]);
      const written = await writeCheckpoint(store, anchorLogOf(store), key);
      await store.close();
      expect(written.length).toBeGreaterThan(1);
      for (const part of written) expect(JSON.stringify(part).length).toBeLessThan(MAX_LOG_LINE_BYTES);
      const heads = written.flatMap((part) => (part.kind === 'checkpoint' ? part.heads : []));
      expect(heads).toHaveLength(120);
      const result = await verified();
      expect([findings(result), result.streams.anchorsMatched]).toEqual([[], 120]);
    });
  });

  describe('given a store whose anchors were signed before the log was chained', () => {
    async function legacyStore(): Promise<void> {
      const store = new SqliteEventStore({ filename });
      for (const name of ['a', 'b']) await appendChained(store, `session-${name}`, [entry(`${name}1`)]);
      await store.close();
      const database = new Database(filename);
      database.exec(SQLITE_LEGACY_ANCHOR_SCHEMA);
      const insert = database.prepare(
        'INSERT INTO anchors (stream_id, revision, head_hash, signed_at, key_id, signature) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const name of ['a', 'b']) {
        const head = database
          .prepare("SELECT json_extract(metadata, '$.hash') AS hash FROM events WHERE stream_id = ?")
          .get(`session-${name}`) as { hash: string };
        const anchor = signAnchor(
          { streamId: `session-${name}`, revision: 0n, headHash: head.hash },
          new Date(),
          key,
        );
        insert.run(anchor.stream, 0, anchor.headHash, anchor.time, anchor.keyId, anchor.signature);
      }
      database.close();
      const reopened = new SqliteEventStore({ filename });
      await writeCheckpoint(reopened, anchorLogOf(reopened), key);
      await reopened.close();
    }

    it('keeps them as the first positions, the chain starting after them, and verifies', async () => {
      await legacyStore();
      const result = await verified();
      expect(findings(result)).toEqual([]);
      expect(result.log).toMatchObject({ legacyAnchors: 2, entries: 1, newestCheckpoint: { position: '3' } });
      expect(result.streams.anchorsMatched).toBe(2 + 2);
    });

    it('names an older anchor deleted from among them', async () => {
      await legacyStore();
      sql('DELETE FROM anchors WHERE anchor_id = 1');
      expect(findings(await verified())).toEqual(['log_gap']);
    });
  });

  describe('given erasures', () => {
    async function erasedStore(): Promise<void> {
      await writtenStore();
      const store = new SqliteEventStore({ filename });
      const log = anchorLogOf(store);
      await eraseSigned(
        store,
        'session-c',
        { actor: 'dpo', reason: 'art. 17', tenant: 'acme' },
        { log, key },
      );
      await writeCheckpoint(store, log, key);
      await store.close();
    }

    it('a real erasure verifies, its absence answered by the signed erasure', async () => {
      await erasedStore();
      const result = await verified();
      expect(findings(result)).toEqual([]);
      expect(result.streams.erased.map((stream) => stream.streamId)).toEqual(['session-c']);
    });

    it('an erasure record edited field by field is named with the fields', async () => {
      await erasedStore();
      for (const [column, value] of [
        ['actor', 'someone else'],
        ['reason', 'another reason'],
        ['event_count', 7],
        ['head_revision', '0'],
      ] as const) {
        const database = new Database(filename);
        const original = database.prepare(`SELECT ${column} AS value FROM erasures`).get() as {
          value: unknown;
        };
        database.prepare(`UPDATE erasures SET ${column} = ?`).run(value);
        database.close();
        const result = await verified();
        expect(result.log.findings).toEqual([expect.objectContaining({ kind: 'erasure_altered' })]);
        sql(`UPDATE erasures SET ${column} = ?`, original.value);
      }
      expect((await verified()).ok).toBe(true);
    });

    it('an erasure record deleted is named', async () => {
      await erasedStore();
      sql('DELETE FROM erasures');
      expect(findings(await verified())).toContain('erasure_record_missing');
    });

    it('an erasure forged for a session deleted behind the engine is refused, and the session named', async () => {
      await writtenStore();
      const database = new Database(filename);
      const head = database
        .prepare(
          "SELECT stream_revision, json_extract(metadata, '$.hash') AS hash FROM events WHERE stream_id = 'session-a' ORDER BY stream_revision DESC LIMIT 1",
        )
        .get() as { stream_revision: number; hash: string };
      database.exec(
        "DELETE FROM events WHERE stream_id = 'session-a'; UPDATE streams SET erased = 1 WHERE stream_id = 'session-a';",
      );
      database
        .prepare(
          "INSERT INTO erasures (stream_id, actor, reason, tenant, erased_at, event_count, head_hash, head_revision) VALUES ('session-a', 'dpo', 'forged', NULL, ?, 2, ?, ?)",
        )
        .run(new Date().toISOString(), head.hash, String(head.stream_revision));
      database.close();
      const result = await verified();
      expect(findings(result)).toEqual(['erasure_unsigned', 'anchor_not_reached:session-a']);
    });

    it('a session erased and written again verifies', async () => {
      await erasedStore();
      const store = new SqliteEventStore({ filename });
      const sealed = sealEvents('session-c', [entry('c-again')], undefined);
      await store.appendToStream('session-c', sealed, { expectedRevision: 'no_stream', reviveErased: true });
      await writeCheckpoint(store, anchorLogOf(store), key);
      await store.close();
      expect(findings(await verified())).toEqual([]);
    });
  });
});
