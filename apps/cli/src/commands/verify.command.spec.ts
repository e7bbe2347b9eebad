import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { runCli } from '../run-cli';
import { recordingIo, type RecordingIo } from '../testing-io';
import { commands } from '.';

let directory: string;
let storeUrl: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-verify-'));
  storeUrl = `sqlite:${join(directory, 'strata.db')}`;
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

async function strata(...args: string[]): Promise<RecordingIo & { code: number }> {
  const io = recordingIo({}, directory);
  const code = await runCli(args, io, commands);
  return Object.assign(io, { code });
}

async function importSession(sessionId: string): Promise<void> {
  const built = session({ sessionId })
    .user('Rename the config loader')
    .assistant('Renamed loadConfig to readConfig in three files.')
    .user('Thanks');
  const file = join(directory, `${sessionId}.jsonl`);
  writeFileSync(file, serializeSessionFile(built.header, built.entries));
  const imported = await strata('import', file, '--store', storeUrl);
  expect(imported.code).toBe(0);
}

/** Changes one stored event's data behind the store's back; returns its id. */
function tamperWithEvent(streamId: string, revision: number): string {
  const database = new Database(join(directory, 'strata.db'));
  try {
    const row = database
      .prepare('SELECT event_id, data FROM events WHERE stream_id = ? AND stream_revision = ?')
      .get(streamId, revision) as { event_id: string; data: string };
    const data = JSON.parse(row.data) as { entry: { message: { content: string } } };
    data.entry.message.content = 'Renamed nothing.';
    database.prepare('UPDATE events SET data = ? WHERE event_id = ?').run(JSON.stringify(data), row.event_id);
    return row.event_id;
  } finally {
    database.close();
  }
}

describe('strata verify', () => {
  describe('given sessions imported untouched', () => {
    it('reports that the chain of one session holds, with its event count and the anchor import signed', async () => {
      await importSession('verify-1');
      const result = await strata('verify', 'verify-1', '--store', storeUrl);
      expect(result.code).toBe(0);
      expect(result.out()).toMatch(
        /^session-verify-1: chain holds \(4 events, head [0-9a-f]{64}\); 1 anchor matched\n$/,
      );
    });

    it('reports that every chain holds with --all (and without a session id)', async () => {
      await importSession('verify-1');
      await importSession('verify-2');
      for (const args of [['--all'], []]) {
        const result = await strata('verify', ...args, '--store', storeUrl);
        expect(result.code).toBe(0);
        // each session's anchor, and the head each import's checkpoint recorded
        expect(result.out()).toMatch(
          /^newest checkpoint: position 4, signed \S+, \d+ s old, covers the store up to position 8 \(2 streams, 8 events\); nothing was written after it\nevery chain holds \(2 streams, 8 events, 4 anchors matched, 4 signed log entries chained\)\n$/,
        );
      }
    });
  });

  describe('with --json', () => {
    it('prints one JSON object for a session, for --all and for an event file', async () => {
      await importSession('verify-1');
      await importSession('verify-2');
      const one = await strata('verify', 'verify-1', '--store', storeUrl, '--json');
      expect(one.code).toBe(0);
      expect(JSON.parse(one.out())).toMatchObject({
        ok: true,
        sessionId: 'verify-1',
        stream: { streamId: 'session-verify-1', events: 4, headRevision: 3, anchorsMatched: 1, findings: [] },
        refusedAnchors: { total: 0 },
      });
      const all = await strata('verify', '--all', '--store', storeUrl, '--json');
      expect(all.code).toBe(0);
      expect(JSON.parse(all.out())).toMatchObject({
        ok: true,
        streams: 2,
        events: 8,
        anchorsMatched: 4,
        failed: [],
        log: {
          chained: true,
          entries: 4,
          findings: [],
          newestCheckpoint: { streams: 2, events: '8', eventsAfter: 0 },
        },
      });
      const exported = await strata('export', 'verify-1', '--events', '--store', storeUrl);
      writeFileSync(join(directory, 'events.jsonl'), exported.out());
      const file = await strata('verify', '--file', 'events.jsonl', '--json');
      expect(file.code).toBe(0);
      expect(JSON.parse(file.out())).toMatchObject({
        ok: true,
        file: 'events.jsonl',
        streams: [{ streamId: 'session-verify-1', events: 4 }],
      });
    });

    it('names the altered event among the findings and exits 1', async () => {
      await importSession('verify-1');
      await importSession('verify-2');
      const tamperedId = tamperWithEvent('session-verify-1', 2);
      const all = await strata('verify', '--all', '--store', storeUrl, '--json');
      expect(all.code).toBe(1);
      const printed = JSON.parse(all.out()) as {
        ok: boolean;
        failed: { streamId: string; findings: { kind: string; description: string }[] }[];
      };
      expect(printed.ok).toBe(false);
      expect(printed.failed).toHaveLength(1);
      expect(printed.failed[0]).toMatchObject({ streamId: 'session-verify-1' });
      expect(printed.failed[0]!.findings[0]).toMatchObject({ kind: 'chain_broken' });
      expect(printed.failed[0]!.findings[0]!.description).toContain(tamperedId);
    });
  });

  it('--all tells on stderr each stream it reads, then that it checks them', async () => {
    await importSession('verify-1');
    await importSession('verify-2');
    const all = await strata('verify', '--all', '--store', storeUrl);
    expect(all.err()).toBe(
      'verify: stream 1: session-verify-1 (0 events read before it)\n' +
        'verify: stream 2: session-verify-2 (4 events read before it)\n' +
        "verify: 2 streams read (8 events); checking each against the store's records\n",
    );
  });

  describe('given one stored event changed in the SQLite file', () => {
    it('names exactly that event (stream, revision, id, reason) and exits 1', async () => {
      await importSession('verify-1');
      await importSession('verify-2');
      const tamperedId = tamperWithEvent('session-verify-1', 2);
      const one = await strata('verify', 'verify-1', '--store', storeUrl);
      expect(one.code).toBe(1);
      expect(one.out()).toBe(
        `session-verify-1: chain broken at revision 2, event ${tamperedId}: hash_mismatch ` +
          '(its stored content no longer gives its hash (it was altered)); 2 events before it hold\n',
      );
      const all = await strata('verify', '--all', '--store', storeUrl);
      expect(all.code).toBe(1);
      expect(all.out()).toContain(
        `session-verify-1: chain broken at revision 2, event ${tamperedId}: hash_mismatch`,
      );
      expect(all.out()).toContain('1 of 2 streams broken');
      expect(all.out()).not.toContain('session-verify-2: chain broken');
      expect((await strata('verify', 'verify-2', '--store', storeUrl)).code).toBe(0);
    });
  });

  it('names a session that is not stored, and refuses a session id together with --all', async () => {
    const missing = await strata('verify', 'nope', '--store', storeUrl);
    expect(missing.code).toBe(1);
    expect(missing.err()).toContain('session nope is not in the store');
    expect((await strata('verify', 'a', '--all', '--store', storeUrl)).code).toBe(2);
    expect((await strata('verify', 'a', 'b', '--store', storeUrl)).code).toBe(2);
  });
});
