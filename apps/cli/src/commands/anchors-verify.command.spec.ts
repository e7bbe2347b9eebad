// Tamper evidence that holds (issue 14), end to end through the CLI on real SQLite files changed
// behind the store's back with raw SQL: a cut tail caught from the store's own records and from
// anchors, a store rewritten with its records caught against anchors exported before, forged
// anchors refused, offline verification of an exported event log, and erased sessions reported.
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '@strata/event-store';
import {
  anchorLogOf,
  anchorSchema,
  anchorStreamHead,
  generateAnchorSigningKey,
  loadOrCreateSigningKey,
  signAnchor,
  type Anchor,
} from '@strata/integrity';
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { runCli } from '../run-cli';
import { recordingIo, type RecordingIo } from '../testing-io';
import { commands } from '.';

let directory: string;
let storeFile: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-anchors-'));
  storeFile = join(directory, 'strata.db');
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

async function strata(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<RecordingIo & { code: number }> {
  const io = recordingIo(env, directory);
  const code = await runCli(args, io, commands);
  return Object.assign(io, { code });
}

/** A session of `turns` user/assistant turns (1 + 2 × turns events), written to a file. */
function sessionFile(sessionId: string, turns: number, answer = 'Done.'): string {
  let built = session({ sessionId });
  for (let turn = 0; turn < turns; turn += 1)
    built = built.user(`Step ${turn}`).assistant(`${answer} ${turn}`);
  const file = join(directory, `${sessionId}-${turns}-${answer.length}.jsonl`);
  writeFileSync(file, serializeSessionFile(built.header, built.entries));
  return file;
}

async function importInto(file: string, store: string, env: Record<string, string> = {}): Promise<void> {
  const imported = await strata(['import', file, '--store', `sqlite:${store}`], env);
  expect(imported.code).toBe(0);
}

function sql(file: string, statement: string, ...parameters: unknown[]): void {
  const database = new Database(file);
  try {
    database.prepare(statement).run(...parameters);
  } finally {
    database.close();
  }
}

function lastRevisionRecorded(file: string, streamId: string): number {
  const database = new Database(file, { readonly: true });
  try {
    return database
      .prepare('SELECT last_revision FROM streams WHERE stream_id = ?')
      .pluck()
      .get(streamId) as number;
  } finally {
    database.close();
  }
}

/** Deletes the stream's last `count` events, as an intruder with write access to the file would. */
function deleteTail(file: string, streamId: string, count: number): void {
  sql(
    file,
    'DELETE FROM events WHERE stream_id = ? AND stream_revision > (SELECT max(stream_revision) FROM events WHERE stream_id = ?) - ?',
    streamId,
    streamId,
    count,
  );
}

async function exportAnchors(store: string): Promise<string> {
  const exported = await strata(['anchors', 'export', '--store', `sqlite:${store}`]);
  expect(exported.code).toBe(0);
  const file = join(directory, 'anchors.jsonl');
  writeFileSync(file, exported.out());
  return file;
}

/** The anchors of exported log lines (checkpoints and erasures left out). */
function anchorLines(text: string): Anchor[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { kind?: string })
    .filter((entry) => entry.kind === undefined || entry.kind === 'anchor')
    .map((entry) => anchorSchema.parse(entry));
}

function anchorsIn(file: string): Anchor[] {
  return anchorLines(readFileSync(file, 'utf8'));
}

describe("strata verify against the store's records and signed anchors", () => {
  describe('given a session whose last 3 events were deleted from a copy of the SQLite file', () => {
    it('names the missing tail from the streams table, without any anchor, and adds nothing to the file', async () => {
      await importInto(sessionFile('tail', 4), storeFile, { STRATA_ANCHORS: 'off' });
      const copy = join(directory, 'copy.db');
      copyFileSync(storeFile, copy);
      deleteTail(copy, 'session-tail', 3);
      expect(lastRevisionRecorded(copy, 'session-tail')).toBe(8);

      const intact = await strata(['verify', 'tail', '--store', `sqlite:${storeFile}`]);
      expect(intact.code).toBe(0);
      expect(intact.out()).toMatch(/^session-tail: chain holds \(9 events, head [0-9a-f]{64}\)\n$/);

      const one = await strata(['verify', 'tail', '--store', `sqlite:${copy}`]);
      expect(one.code).toBe(1);
      expect(one.out()).toBe(
        "session-tail: the store records revision 8 as the stream's last, but the chain ends at revision 5: " +
          'the last 3 events are missing\n',
      );
      const all = await strata(['verify', '--all', '--store', `sqlite:${copy}`]);
      expect(all.code).toBe(1);
      expect(all.out()).toContain('the last 3 events are missing');
      expect(all.out()).toContain('1 of 1 stream broken');
      const inspected = new Database(copy, { readonly: true });
      const tables = inspected.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
      inspected.close();
      expect(tables).not.toContain('anchors');
    });

    it('names the anchor the stream no longer reaches when the streams table was rolled back too', async () => {
      await importInto(sessionFile('tail', 4), storeFile);
      const anchors = await exportAnchors(storeFile);
      const [anchor] = anchorsIn(anchors);
      expect(anchor).toMatchObject({ stream: 'session-tail', revision: '8' });
      const copy = join(directory, 'copy.db');
      copyFileSync(storeFile, copy);
      deleteTail(copy, 'session-tail', 3);
      sql(copy, "UPDATE streams SET last_revision = 5 WHERE stream_id = 'session-tail'");

      for (const args of [['tail'], ['--all']]) {
        const result = await strata([
          'verify',
          ...args,
          '--store',
          `sqlite:${copy}`,
          '--anchors',
          'anchors.jsonl',
        ]);
        expect(result.code).toBe(1);
        expect(result.out()).toContain(
          `session-tail: anchor anchors.jsonl:1 (revision 8, head ${anchor!.headHash.slice(0, 12)}…, signed ${anchor!.time} by key ${anchor!.keyId}) ` +
            'is not matched: the verified chain ends at revision 5 (the stream is shorter than the anchor)',
        );
      }
      // The store's own anchor log still holds the anchor too, unless the intruder removed it.
      expect((await strata(['verify', 'tail', '--store', `sqlite:${copy}`])).out()).toContain(
        'anchor anchor log #1 (revision 8',
      );
      sql(copy, 'DELETE FROM store_log');
      expect((await strata(['verify', 'tail', '--store', `sqlite:${copy}`])).code).toBe(0);
    });
  });

  describe('given a session rewritten with its own log entries removed', () => {
    it('is caught with the store alone: the log has a gap, and the checkpoints name the session', async () => {
      await importInto(sessionFile('rewritten', 3), storeFile);
      await importInto(sessionFile('other', 2), storeFile);
      for (const table of ['events', 'streams'])
        sql(storeFile, `DELETE FROM ${table} WHERE stream_id = 'session-rewritten'`);
      sql(storeFile, "DELETE FROM store_log WHERE stream_id = 'session-rewritten'");
      await importInto(sessionFile('rewritten', 3, 'Something else entirely.'), storeFile, {
        STRATA_ANCHORS: 'off',
      });
      const alone = await strata(['verify', '--all', '--store', `sqlite:${storeFile}`]);
      expect(alone.code).toBe(1);
      expect(alone.out()).toContain('the signed log: positions 1–1 are missing');
      expect(alone.out()).toContain('session-rewritten: anchor anchor log #2 (revision 6, head');
      expect(alone.out()).toContain("is not matched: the chain's hash at that revision is");
    });
  });

  describe('given a store rewritten whole, its records and its whole signed log included', () => {
    it('passes on its own but fails against the log exported before, naming the anchor and the cut log', async () => {
      await importInto(sessionFile('rewritten', 3), storeFile);
      await importInto(sessionFile('other', 2), storeFile);
      const anchors = await exportAnchors(storeFile);
      const copy = join(directory, 'copy.db');
      copyFileSync(storeFile, copy);
      for (const table of ['events', 'streams'])
        sql(copy, `DELETE FROM ${table} WHERE stream_id = 'session-rewritten'`);
      sql(copy, 'DELETE FROM store_log');
      await importInto(sessionFile('rewritten', 3, 'Something else entirely.'), copy, {
        STRATA_ANCHORS: 'off',
      });

      const alone = await strata(['verify', '--all', '--store', `sqlite:${copy}`]);
      expect(alone.code).toBe(0);
      expect(alone.out()).toBe('every chain holds (2 streams, 12 events)\n');

      const against = await strata(['verify', '--all', '--store', `sqlite:${copy}`, '--anchors', anchors]);
      expect(against.code).toBe(1);
      const rewrittenAnchor = anchorsIn(anchors).find((anchor) => anchor.stream === 'session-rewritten')!;
      expect(against.out()).toContain(
        `session-rewritten: anchor ${anchors}:1 (revision 6, head ${rewrittenAnchor.headHash.slice(0, 12)}…`,
      );
      expect(against.out()).toContain("is not matched: the chain's hash at that revision is");
      expect(against.out()).toContain(
        "the store's log ends at position 0, but the exported copy holds entries up to 4",
      );
      expect(against.out()).toContain('1 of 2 streams broken');
      expect(against.out()).not.toContain('session-other');
    });
  });

  describe('given an anchor file with a forged anchor', () => {
    it('refuses an anchor whose fields were changed, and one signed by another key, naming each', async () => {
      await importInto(sessionFile('forged', 2), storeFile);
      const anchors = await exportAnchors(storeFile);
      const [genuine] = anchorsIn(anchors);
      const foreignKey = generateAnchorSigningKey();
      const altered = { ...genuine!, revision: '2' };
      const foreign = signAnchor(
        { streamId: 'session-forged', revision: 4n, headHash: genuine!.headHash },
        new Date(),
        foreignKey,
      );
      writeFileSync(anchors, [genuine, altered, foreign].map((anchor) => JSON.stringify(anchor)).join('\n'));

      const result = await strata([
        'verify',
        'forged',
        '--store',
        `sqlite:${storeFile}`,
        '--anchors',
        anchors,
      ]);
      expect(result.code).toBe(1);
      expect(result.out()).toContain(
        `anchor ${anchors}:2 (session-forged, revision 2, key ${genuine!.keyId}) refused: its signature does not verify (forged or altered)`,
      );
      expect(result.out()).toContain(
        `anchor ${anchors}:3 (session-forged, revision 4, key ${foreignKey.keyId}) refused: it is signed by a key that is not among the public keys given`,
      );
      expect(result.out()).toContain('chain holds (5 events');

      const publicKeyFile = join(directory, 'foreign.pub.pem');
      writeFileSync(publicKeyFile, foreignKey.publicKeyPem);
      const withForeignKey = await strata([
        'verify',
        'forged',
        '--store',
        `sqlite:${storeFile}`,
        '--anchors',
        anchors,
        '--public-key',
        publicKeyFile,
      ]);
      expect(withForeignKey.out()).toContain(
        `anchor ${anchors}:1 (session-forged, revision 4, key ${genuine!.keyId}) refused: it is signed by a key`,
      );
      expect(withForeignKey.code).toBe(1);
    });

    it('refuses lines that are no anchor at all, and an anchor file line past the length bound', async () => {
      await importInto(sessionFile('lines', 1), storeFile);
      const anchors = join(directory, 'bad.jsonl');
      writeFileSync(anchors, `not json\n{"stream":"session-lines"}\n${'x'.repeat(1024 * 1024 + 10)}\n`);
      const result = await strata([
        'verify',
        '--all',
        '--store',
        `sqlite:${storeFile}`,
        '--anchors',
        anchors,
      ]);
      expect(result.code).toBe(1);
      expect(result.out()).toContain(`anchor ${anchors}:1 refused: not an anchor (it is not JSON)`);
      expect(result.out()).toContain(`anchor ${anchors}:2 refused: not an anchor (revision:`);
      expect(result.out()).toContain(
        `anchor ${anchors}:3 refused: not an anchor (it is longer than 1048576 bytes)`,
      );
    });
  });

  describe('given an exported event log checked with no store', () => {
    it('holds as exported, names an event changed in the file, and names the anchor a cut file misses', async () => {
      await importInto(sessionFile('offline', 3), storeFile);
      const exported = await strata(['export', 'offline', '--events', '--store', `sqlite:${storeFile}`]);
      expect(exported.code).toBe(0);
      const lines = exported
        .out()
        .split('\n')
        .filter((line) => line !== '');
      expect(lines).toHaveLength(7);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        streamId: 'session-offline',
        revision: '0',
        type: 'SessionStarted',
        metadata: { hash: expect.stringMatching(/^[0-9a-f]{64}$/), previousHash: '0'.repeat(64) },
      });
      const events = join(directory, 'events.jsonl');
      writeFileSync(events, exported.out());
      const anchors = await exportAnchors(storeFile);
      rmSync(storeFile);

      const holds = await strata(['verify', '--file', events, '--anchors', anchors]);
      expect(holds.code).toBe(0);
      // the anchor, and the head the checkpoint written after the import recorded
      expect(holds.out()).toMatch(
        /^session-offline: chain holds \(7 events, head [0-9a-f]{64}\); 2 anchors matched\n$/,
      );

      const changed = lines.map((line, index) => (index === 3 ? line.replace('Step 1', 'Step 9') : line));
      expect(changed[3]).not.toBe(lines[3]);
      writeFileSync(events, `${changed.join('\n')}\n`);
      const altered = await strata(['verify', '--file', events]);
      expect(altered.code).toBe(1);
      const alteredId = (JSON.parse(lines[3]!) as { id: string }).id;
      expect(altered.out()).toBe(
        `session-offline: chain broken at revision 3, event ${alteredId}: hash_mismatch ` +
          '(its stored content no longer gives its hash (it was altered)); 3 events before it hold\n',
      );

      writeFileSync(events, `${lines.slice(0, 4).join('\n')}\n`);
      expect((await strata(['verify', '--file', events])).code).toBe(0);
      const cut = await strata(['verify', '--file', events, '--anchors', anchors]);
      expect(cut.code).toBe(1);
      expect(cut.out()).toContain(`session-offline: anchor ${anchors}:1 (revision 6,`);
      expect(cut.out()).toContain(
        'the verified chain ends at revision 3 (the stream is shorter than the anchor)',
      );
    });

    it('names a line that is not an exported event', async () => {
      const events = join(directory, 'events.jsonl');
      writeFileSync(events, '{"streamId":"session-x"}\n');
      const result = await strata(['verify', '--file', events]);
      expect(result.code).toBe(1);
      expect(result.out()).toContain(`${events}:1: not an exported event`);
      expect((await strata(['verify', '--file', events, '--all'])).code).toBe(2);
    });
  });

  describe('given an erased session', () => {
    it('reports the erasure record with exit 0, and its anchors are answered by it', async () => {
      await importInto(sessionFile('erased', 2), storeFile);
      const anchors = await exportAnchors(storeFile);
      const erased = await strata([
        'erase',
        'erased',
        '--reason',
        'erasure request 7',
        '--actor',
        'dpo',
        '--json',
        '--store',
        `sqlite:${storeFile}`,
      ]);
      expect(erased.code).toBe(0);
      const record = JSON.parse(erased.out()) as { erasedAt: string };
      for (const [args, answered] of [
        [['erased'], 1],
        [['--all'], 2],
        [['erased', '--anchors', anchors], 2],
      ] as const) {
        const result = await strata(['verify', ...args, '--store', `sqlite:${storeFile}`]);
        expect(result.code).toBe(0);
        expect(result.out()).toContain(
          `session-erased: erased at ${record.erasedAt} by dpo: erasure request 7; ${answered} anchors answered by the erasure record`.replace(
            '; 1 anchors',
            '; 1 anchor',
          ),
        );
      }
      // an erasure made behind the engine, unsigned, is named
      await importInto(sessionFile('unsigned', 1), storeFile);
      const store = new SqliteEventStore({ filename: storeFile });
      await store.eraseStream('session-unsigned', { actor: 'dpo', reason: 'not signed' });
      await store.close();
      const unsigned = await strata(['verify', '--all', '--store', `sqlite:${storeFile}`]);
      expect(unsigned.code).toBe(1);
      expect(unsigned.out()).toContain('no signed erasure in the log stands for this record');
    });

    it('verifies a session erased and imported again, alone and against the log exported before the erasure', async () => {
      const file = sessionFile('again', 2);
      await importInto(file, storeFile);
      const anchors = await exportAnchors(storeFile);
      const store = `sqlite:${storeFile}`;
      expect((await strata(['erase', 'again', '--reason', 'request 9', '--store', store])).code).toBe(0);
      const reimported = await strata(['import', file, '--allow-erased', '--store', store]);
      expect(reimported.code).toBe(0);
      for (const args of [['--all'], ['--all', '--anchors', anchors], ['again']]) {
        const result = await strata(['verify', ...args, '--store', store]);
        expect([result.code, result.out()]).toEqual([0, expect.not.stringContaining('not matched')]);
      }
    });

    it('answers an anchor signed after the erasure only when it is the head the record states', async () => {
      await importInto(sessionFile('late', 2), storeFile);
      const store = new SqliteEventStore({ filename: storeFile });
      const record = await store.eraseStream('session-late', { actor: 'dpo', reason: 'request 8' });
      await store.close();
      const key = generateAnchorSigningKey();
      const publicKey = join(directory, 'late.pub.pem');
      writeFileSync(publicKey, key.publicKeyPem);
      const after = new Date(Date.parse(record.erasedAt) + 1_000);
      const sign = (revision: bigint, headHash: string) =>
        JSON.stringify(signAnchor({ streamId: 'session-late', revision, headHash }, after, key));
      const verify = async (anchorLines: string[]) => {
        const anchors = join(directory, 'late.jsonl');
        writeFileSync(anchors, `${anchorLines.join('\n')}\n`);
        return strata([
          'verify',
          'late',
          '--store',
          `sqlite:${storeFile}`,
          '--anchors',
          anchors,
          '--public-key',
          publicKey,
        ]);
      };
      // the head held while the erasure ran, signed just after it
      const head = await verify([sign(BigInt(record.headRevision!), record.headHash!)]);
      expect([head.code, head.out()]).toEqual([
        0,
        expect.stringContaining('1 anchor answered by the erasure record'),
      ]);
      // an earlier revision, or another hash at the head, signed after the erasure is not answered
      for (const late of [sign(0n, record.headHash!), sign(BigInt(record.headRevision!), '0'.repeat(64))]) {
        const result = await verify([late]);
        expect(result.code).toBe(1);
        expect(result.out()).toContain('is not matched');
      }
    });
  });

  describe('given anchors signed with a key that was rotated since', () => {
    it('refuses them unless STRATA_ANCHOR_PUBLIC_KEYS names the earlier public key', async () => {
      const keyFile = (name: string) => {
        const { privateKey, publicKey } = generateKeyPairSync('ed25519');
        writeFileSync(join(directory, `${name}.pem`), privateKey.export({ type: 'pkcs8', format: 'pem' }));
        writeFileSync(join(directory, `${name}.pub.pem`), publicKey.export({ type: 'spki', format: 'pem' }));
        return `${name}.pem`;
      };
      const [oldKey, newKey] = [keyFile('old'), keyFile('new')];
      await importInto(sessionFile('rotated', 2), storeFile, { STRATA_SIGNING_KEY_FILE: oldKey });
      const args = ['verify', 'rotated', '--store', `sqlite:${storeFile}`];
      const refused = await strata(args, { STRATA_SIGNING_KEY_FILE: newKey });
      expect(refused.code).toBe(1);
      expect(refused.out()).toContain(
        'refused: it is signed by a key that is not among the public keys given',
      );
      const accepted = await strata(args, {
        STRATA_SIGNING_KEY_FILE: newKey,
        STRATA_ANCHOR_PUBLIC_KEYS: 'old.pub.pem',
      });
      expect([accepted.code, accepted.out()]).toEqual([0, expect.stringContaining('1 anchor matched')]);
      const missing = await strata(args, {
        STRATA_SIGNING_KEY_FILE: newKey,
        STRATA_ANCHOR_PUBLIC_KEYS: 'gone.pem',
      });
      expect(missing.code).toBe(2);
      expect(missing.err()).toContain('gone.pem does not exist');
    });
  });

  describe('strata anchors export', () => {
    it('prints every anchor as a JSON line, and with --since only those signed since', async () => {
      await importInto(sessionFile('first', 1), storeFile);
      await importInto(sessionFile('second', 1), storeFile);
      const all = await strata(['anchors', 'export', '--store', `sqlite:${storeFile}`]);
      expect(all.code).toBe(0);
      const anchors = anchorLines(all.out());
      expect(anchors.map((anchor) => anchor.stream)).toEqual(['session-first', 'session-second']);
      // each import ends with a checkpoint of the store
      expect(all.out().match(/"kind":"checkpoint"/g)).toHaveLength(2);
      const future = await strata([
        'anchors',
        'export',
        '--store',
        `sqlite:${storeFile}`,
        '--since',
        '2999-01-01T00:00:00Z',
      ]);
      expect(future.out()).toBe('');
      const since = await strata([
        'anchors',
        'export',
        '--store',
        `sqlite:${storeFile}`,
        '--since',
        anchors[0]!.time,
      ]);
      expect(since.out().trim().split('\n').length).toBeGreaterThanOrEqual(1);
      expect((await strata(['anchors', 'export', '--since', 'yesterday'])).code).toBe(2);
      expect((await strata(['anchors', 'list'])).code).toBe(2);
    });

    it('gives each anchor its position in the log, and with --after only those logged after it, whatever their times', async () => {
      await importInto(sessionFile('early', 1), storeFile);
      const first = await strata(['anchors', 'export', '--store', `sqlite:${storeFile}`]);
      const kept = anchorLines(first.out());
      expect(kept.map((anchor) => anchor.position)).toEqual(['1']);
      // an anchor signed under a clock far behind: a time-based export after the first would miss it
      await importInto(sessionFile('late', 1), storeFile, { STRATA_ANCHORS: 'off' });
      const store = new SqliteEventStore({ filename: storeFile });
      const { key } = loadOrCreateSigningKey({ dataDirectory: join(directory, 'data'), cwd: directory });
      await anchorStreamHead(
        store,
        'session-late',
        key,
        anchorLogOf(store),
        new Date('2000-01-01T00:00:00.000Z'),
      );
      await store.close();
      const byTime = await strata([
        'anchors',
        'export',
        '--store',
        `sqlite:${storeFile}`,
        '--since',
        kept[0]!.time,
      ]);
      expect(byTime.out()).not.toContain('session-late');
      const after = await strata([
        'anchors',
        'export',
        '--store',
        `sqlite:${storeFile}`,
        '--after',
        kept[0]!.position!,
      ]);
      expect(after.code).toBe(0);
      const since = anchorLines(after.out());
      expect(since.map((anchor) => [anchor.stream, anchor.position])).toEqual([['session-late', '3']]);
      const refused = await strata([
        'anchors',
        'export',
        '--store',
        `sqlite:${storeFile}`,
        '--after',
        'last',
      ]);
      expect(refused.code).toBe(2);
      expect(refused.err()).toContain('--after must be a position of the anchor log');
    });

    it('signs with a key made under data/ on first use, and refuses an unknown STRATA_ANCHORS value', async () => {
      await importInto(sessionFile('keyed', 1), storeFile);
      expect(readFileSync(join(directory, 'data', 'signing-key.pub.pem'), 'utf8')).toContain(
        'BEGIN PUBLIC KEY',
      );
      const refused = await strata(['import', sessionFile('keyed', 1), '--store', `sqlite:${storeFile}`], {
        STRATA_ANCHORS: 'sometimes',
      });
      expect(refused.code).toBe(2);
      expect(refused.err()).toContain('STRATA_ANCHORS must be on or off');
    });
  });
});
