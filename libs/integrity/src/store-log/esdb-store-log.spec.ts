// The signed log on the EventStoreDB adapter (issue 24 item 5), over the in-process protocol test
// server: the log is the `strata-anchors` stream, chained and signed as on SQLite; checkpoints are
// read from `$all` after the last one (no counts: the protocol has no cheap count of streams);
// engines appending at once never fork the chain; the checks the protocol leaves possible catch
// their edits (a log truncated by metadata, an erasure record appended behind the engine's back).
import { jsonEvent, EventStoreDBClient } from '@eventstore/db-client';
import { startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import {
  ANCHOR_STREAM,
  createUuidV7Generator,
  EsdbEventStore,
  ERASURE_LOG_STREAM,
} from '@strata/event-store';
import { appendChained } from '../testing/append-chained';
import { generateAnchorSigningKey } from '../anchors/signing-key';
import { anchorLogOf } from '../anchors/anchor-log';
import { anchorStreamHead } from '../anchors/anchor-scheduler';
import { eraseSigned } from './signed-erasure';
import { writeCheckpoint } from './store-checkpoints';
import { verifyStoreWithLog } from './verify-store';
import { SignedLog } from './signed-log';
import { EsdbLogStorage } from './esdb-log-storage';
import type { LogEntry } from './log-entry';

const nextId = createUuidV7Generator();

describe('the signed log on the EventStoreDB adapter', () => {
  let server: EsdbTestServer;
  let store: EsdbEventStore;
  const key = generateAnchorSigningKey();
  const keys = new Map([[key.keyId, { keyId: key.keyId, publicKey: key.publicKey }]]);

  beforeEach(async () => {
    server = await startEsdbTestServer();
    store = EsdbEventStore.fromConnectionString(server.connectionString);
  });

  afterEach(async () => {
    await store.close();
    await server.stop();
  });

  async function writtenStore(): Promise<void> {
    const log = anchorLogOf(store);
    for (const name of ['a', 'b']) {
      await appendChained(store, `session-${name}`, [
        { id: nextId(), type: 'message', data: { text: name } },
      ]);
      await anchorStreamHead(store, `session-${name}`, key, log);
    }
    await writeCheckpoint(store, log, key);
    await appendChained(store, 'session-c', [{ id: nextId(), type: 'message', data: { text: 'c' } }]);
    await writeCheckpoint(store, log, key);
  }

  it('verifies an untouched store with its log; checkpoints carry heads but no counts', async () => {
    await writtenStore();
    const result = await verifyStoreWithLog(store, { keys });
    expect([result.ok, result.log.findings]).toEqual([true, []]);
    expect(result.log.newestCheckpoint).toMatchObject({ streams: null, events: null, eventsAfter: null });
    // two anchors, the first checkpoint's heads of a and b, the second's of c
    expect(result.streams.anchorsMatched).toBe(5);
  });

  it('keeps one chain when two logs on the store append at once', async () => {
    await writtenStore();
    const first = new SignedLog(new EsdbLogStorage(store.client));
    const second = new SignedLog(new EsdbLogStorage(store.client));
    const body = (stream: string) => ({
      kind: 'anchor' as const,
      stream,
      revision: '0',
      headHash: 'f'.repeat(64),
    });
    await Promise.all([
      first.append([{ body: body('session-x'), time: new Date() }], key),
      second.append([{ body: body('session-y'), time: new Date() }], key),
      first.append([{ body: body('session-z'), time: new Date() }], key),
    ]);
    const entries: LogEntry[] = [];
    for await (const item of first.entries()) if (item.source === 'chained') entries.push(item.entry);
    expect(entries.map((entry) => entry.position)).toEqual(entries.map((_, index) => String(index + 1)));
    for (const [index, entry] of entries.entries()) {
      if (index > 0) expect(entry.previousHash).toBe(entries[index - 1]!.hash);
    }
  });

  it('accepts a signed erasure, and names an erasure record appended behind the engine', async () => {
    await writtenStore();
    const log = anchorLogOf(store);
    await eraseSigned(store, 'session-a', { actor: 'dpo', reason: 'art. 17' }, { log, key });
    await writeCheckpoint(store, log, key);
    expect((await verifyStoreWithLog(store, { keys })).ok).toBe(true);

    const client = EventStoreDBClient.connectionString(server.connectionString);
    try {
      await client.appendToStream(ERASURE_LOG_STREAM, [
        jsonEvent({
          id: nextId(),
          type: 'strata.stream-erased',
          data: {
            streamId: 'session-b',
            actor: 'dpo',
            reason: 'forged',
            erasedAt: new Date().toISOString(),
            eventCount: 1,
          },
        }),
      ]);
      await client.tombstoneStream('session-b');
    } finally {
      await client.dispose();
    }
    const forged = await verifyStoreWithLog(EsdbEventStore.fromConnectionString(server.connectionString), {
      keys,
    });
    expect(forged.log.findings).toEqual([expect.objectContaining({ kind: 'erasure_unsigned' })]);
    expect(forged.streams.failed.map((stream) => stream.streamId)).toEqual(['session-b']);
  });

  it('names the positions a log truncated through its stream metadata no longer shows', async () => {
    await writtenStore();
    const client = EventStoreDBClient.connectionString(server.connectionString);
    try {
      await client.setStreamMetadata(ANCHOR_STREAM, { truncateBefore: 2 });
    } finally {
      await client.dispose();
    }
    const result = await verifyStoreWithLog(store, { keys });
    expect(result.log.findings).toEqual([
      expect.objectContaining({ kind: 'log_gap', after: '0', next: '3' }),
    ]);
  });
});
