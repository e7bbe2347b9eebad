// The store's signed log over real HTTP (issue 24 items 2-4, decision 0018): a single-tenant
// engine serves its whole log at GET /anchors (anchors, checkpoints, erasures, one chain), hands
// every checkpoint to a witness file and a witness endpoint, signs an erasure before carrying it
// out; the store verifies with its log afterwards, and a log cut at its end is caught against the
// witness file.
import Database from 'better-sqlite3';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import {
  anchorLogOf,
  compareWithExport,
  LogCheck,
  logEntrySchema,
  logFileItems,
  readPublicKey,
  verifyStoreWithLog,
  type LogEntry,
} from '@strata/integrity';
import { session } from '@strata/testing';
import { startHttpEngine, waitUntil, type HttpHarness } from './http-harness';
import { commands } from '../../apps/cli/src/commands';
import { runCli } from '../../apps/cli/src/run-cli';
import { recordingIo } from '../../apps/cli/src/testing-io';

let engine: HttpHarness | undefined;
let witness: Server;
const posted: string[] = [];

beforeAll(async () => {
  witness = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      posted.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => witness.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await engine?.close();
  await new Promise<void>((resolve) => witness.close(() => resolve()));
});

function entriesOf(text: string): LogEntry[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => logEntrySchema.parse(JSON.parse(line)) as LogEntry);
}

describe('the signed log of a single-tenant engine', () => {
  it('serves one chain of anchors, checkpoints and a signed erasure, witnessed outside the store', async () => {
    const witnessUrl = `http://127.0.0.1:${(witness.address() as AddressInfo).port}/checkpoints`;
    engine = await startHttpEngine({
      environment: {
        STRATA_CHECKPOINT_INTERVAL_MS: '1000',
        STRATA_ANCHOR_WITNESS_FILE: 'witness.jsonl',
        STRATA_ANCHOR_WITNESS_URL: witnessUrl,
      },
    });
    const running = engine;
    const witnessFile = join(running.directory, 'witness.jsonl');
    for (const sessionId of ['kept', 'doomed']) {
      const built = session({ sessionId }).user('Hello').assistant('Hi');
      await running.seed(built.header, built.entries);
    }
    // a checkpoint that covers both sessions reaches the witness file
    await waitUntil(
      async () => {
        await Promise.resolve();
        if (!existsSync(witnessFile)) return false;
        const heads = entriesOf(readFileSync(witnessFile, 'utf8')).flatMap((entry) =>
          entry.kind === 'checkpoint' ? entry.heads.map((head) => head.stream) : [],
        );
        return heads.includes('session-kept') && heads.includes('session-doomed');
      },
      'a checkpoint naming both sessions is witnessed',
      30_000,
    );

    const served = await running.request('GET', '/anchors');
    expect(served.status).toBe(200);
    const log = entriesOf(served.text);
    expect(new Set(log.map((entry) => entry.kind))).toEqual(new Set(['anchor', 'checkpoint']));
    const publicKey = readPublicKey(join(running.directory, 'data', 'signing-key.pub.pem'));
    const check = new LogCheck(new Map([[publicKey.keyId, publicKey]]), 'served');
    for (const entry of log) check.add({ source: 'chained', entry });
    check.finish();
    expect(check.findings).toEqual([]);
    const after = await running.request('GET', `/anchors?after=${log[log.length - 2]!.position}`);
    expect(entriesOf(after.text)).toEqual([log[log.length - 1]]);

    const directory = running.directory;
    await running.close({ keepDirectory: true });
    engine = undefined;
    // the endpoint got the checkpoints the file did (the stop's last one included)
    const filed = entriesOf(readFileSync(witnessFile, 'utf8'));
    expect(filed.length).toBeGreaterThan(0);
    expect(entriesOf(posted.join(''))).toEqual(filed);

    // an erasure by `strata erase`, signed into the log before it is carried out
    const storeFile = join(directory, 'strata.db');
    const io = recordingIo({}, directory);
    expect(
      await runCli(
        ['erase', 'doomed', '--reason', 'request 42', '--actor', 'dpo', '--store', `sqlite:${storeFile}`],
        io,
        commands,
      ),
    ).toBe(0);
    const keys = new Map([[publicKey.keyId, publicKey]]);
    const store = new SqliteEventStore({ filename: storeFile });
    try {
      const verified = await verifyStoreWithLog(store, { keys });
      expect([verified.ok, verified.log.findings, verified.streams.failed]).toEqual([true, [], []]);
      expect(verified.streams.erased.map((stream) => stream.streamId)).toEqual(['session-doomed']);
      const signed: LogEntry[] = [];
      for await (const item of anchorLogOf(store).entries())
        if (item.source === 'chained') signed.push(item.entry);
      expect(signed.find((entry) => entry.kind === 'erasure')).toMatchObject({
        streamId: 'session-doomed',
        actor: 'dpo',
        reason: 'request 42',
        headRevision: expect.any(String),
      });
      // the witness file holds the checkpoints the engine wrote; the CLI's later one it never saw
      expect(await compareWithExport(anchorLogOf(store), logFileItems(witnessFile))).toEqual([]);
      expect(verified.log.newestCheckpoint).toMatchObject({ eventsAfter: 0 });
    } finally {
      await store.close();
    }

    // the log cut at its end, from the last witnessed checkpoint on: the store alone sees only that
    // the erasure's record lost its signature; the witness file shows the cut
    const raw = new Database(storeFile);
    const lastWitnessed = filed[filed.length - 1]!.position;
    raw.prepare('DELETE FROM store_log WHERE position >= ?').run(Number(lastWitnessed));
    raw.close();
    const cut = new SqliteEventStore({ filename: storeFile });
    try {
      expect((await verifyStoreWithLog(cut, { keys })).log.findings).toEqual([
        expect.objectContaining({ kind: 'erasure_unsigned' }),
      ]);
      expect(await compareWithExport(anchorLogOf(cut), logFileItems(witnessFile))).toEqual([
        expect.objectContaining({ kind: 'log_truncated' }),
      ]);
    } finally {
      await cut.close();
    }
  });
});
