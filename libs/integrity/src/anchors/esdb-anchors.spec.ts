// Anchors and verification on the EventStoreDB adapter, over the in-process protocol test server:
// anchors live in `strata-anchors`, which neither reads of `$all` nor subscriptions show; a store
// rewritten whole fails against anchors exported before; stream metadata that hides events is
// named.
import { EventStoreDBClient } from '@eventstore/db-client';
import { startEsdbTestServer, type EsdbTestServer } from '@strata/testing';
import { ANCHOR_STREAM, createUuidV7Generator, EsdbEventStore } from '@strata/event-store';
import { appendChained } from '../testing/append-chained';
import type { Anchor } from './anchor';
import { generateAnchorSigningKey } from './signing-key';
import { anchorLogOf } from './anchor-log';
import { AnchorIndex, anchorLogCandidates } from './anchor-index';
import { anchorStreamHead } from './anchor-scheduler';
import { verifyStoreIntegrity, verifyStreamIntegrity } from './verify-integrity';

async function collect<Item>(iterable: AsyncIterable<Item>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

const nextId = createUuidV7Generator();
const context = { tenant: 'acme', actor: 'ana' };

async function writeSession(
  store: EsdbEventStore,
  streamId: string,
  texts: readonly string[],
): Promise<void> {
  for (const text of texts) {
    await appendChained(store, streamId, [{ id: nextId(), type: 'message', data: { text } }], { context });
  }
}

async function* candidatesOf(anchors: readonly Anchor[]) {
  await Promise.resolve();
  for (const [index, anchor] of anchors.entries()) yield { origin: `exported:${index + 1}`, anchor };
}

describe('anchors on the EventStoreDB adapter', () => {
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

  it('keeps anchors in strata-anchors, which readAll and subscriptions never show', async () => {
    await writeSession(store, 'session-a', ['one', 'two']);
    const log = anchorLogOf(store);
    const anchor = await anchorStreamHead(store, 'session-a', key, log);
    expect(anchor).toMatchObject({ stream: 'session-a', revision: '1' });
    // read back with its position in the log: the stream's first event, position 1
    const logged = { ...anchor, position: '1' };
    expect(await collect(log.read({ streamId: 'session-a' }))).toEqual([logged]);
    expect(await collect(log.read({ tenant: 'other' }))).toEqual([]);
    expect(await collect(log.read({ tenant: 'acme' }))).toEqual([logged]);
    expect(await collect(log.read({ after: 1n }))).toEqual([]);
    expect(await collect(log.read({ after: 0n }))).toEqual([logged]);
    expect((await store.streamRevision(ANCHOR_STREAM)) ?? -1n).toBe(0n);
    expect((await collect(store.readAll())).map((event) => event.streamId)).toEqual([
      'session-a',
      'session-a',
    ]);
    const subscription = store.subscribe();
    const seen: string[] = [];
    for await (const message of subscription) {
      if (message.kind === 'caught_up') break;
      if (message.kind === 'event') seen.push(message.event.streamId);
    }
    await subscription.close();
    expect(seen).toEqual(['session-a', 'session-a']);
  });

  it('fails a store rewritten whole against the anchors exported before, naming the anchor', async () => {
    await writeSession(store, 'session-a', ['one', 'two', 'three']);
    const exported = [(await anchorStreamHead(store, 'session-a', key, anchorLogOf(store)))!];
    const rewrittenServer = await startEsdbTestServer();
    const rewritten = EsdbEventStore.fromConnectionString(rewrittenServer.connectionString);
    try {
      await writeSession(rewritten, 'session-a', ['one', 'two', 'forged']);
      const alone = await AnchorIndex.build(anchorLogCandidates(anchorLogOf(rewritten)), keys);
      expect(await verifyStoreIntegrity(rewritten, { anchors: alone })).toMatchObject({
        ok: true,
        streams: 1,
      });
      alone.close();
      const index = await AnchorIndex.build(candidatesOf(exported), keys);
      const result = await verifyStoreIntegrity(rewritten, { anchors: index });
      index.close();
      expect(result.ok).toBe(false);
      expect(result.failed[0]!.findings).toEqual([
        expect.objectContaining({
          kind: 'anchor_mismatch',
          anchor: { origin: 'exported:1', anchor: exported[0] },
        }),
      ]);

      await writeSession(store, 'session-b', ['x']);
      const shorterServer = await startEsdbTestServer();
      const shorter = EsdbEventStore.fromConnectionString(shorterServer.connectionString);
      try {
        await writeSession(shorter, 'session-a', ['one']);
        const shortIndex = await AnchorIndex.build(candidatesOf(exported), keys);
        const short = await verifyStreamIntegrity(shorter, 'session-a', { anchors: shortIndex });
        shortIndex.close();
        expect(short.findings).toEqual([
          expect.objectContaining({ kind: 'anchor_not_reached', chainRevision: 0n }),
        ]);
      } finally {
        await shorter.close();
        await shorterServer.stop();
      }
    } finally {
      await rewritten.close();
      await rewrittenServer.stop();
    }
  });

  it('names stream metadata that hides events, set behind the port', async () => {
    await writeSession(store, 'session-a', ['one', 'two', 'three', 'four']);
    const raw = EventStoreDBClient.connectionString(server.connectionString);
    try {
      await raw.setStreamMetadata('session-a', { maxCount: 1 });
    } finally {
      await raw.dispose();
    }
    const result = await verifyStreamIntegrity(store, 'session-a');
    expect(result.findings.map((finding) => finding.kind)).toEqual(['chain_broken', 'retention_metadata']);
  });
});
