import { checkAnchorSignature, type Anchor } from './anchor';
import { generateAnchorSigningKey } from './signing-key';
import type { AnchorLog } from './anchor-log';
import { InMemoryLogStorage } from '../store-log/memory-log-storage';
import { SignedLog } from '../store-log/signed-log';
import type { LogEntry } from '../store-log/log-entry';
import type { LogStorage } from '../store-log/log-storage';
import { AnchorScheduler } from './anchor-scheduler';

const hashOf = (revision: number): string => revision.toString(16).padStart(64, '0');

async function anchorsOf(log: AnchorLog): Promise<Anchor[]> {
  const anchors: Anchor[] = [];
  for await (const anchor of log.read()) anchors.push(anchor);
  return anchors;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 5 ms until it holds (fails after 10 s). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
    await pause(5);
  }
}

const memoryLog = (): AnchorLog => new SignedLog(new InMemoryLogStorage());

/** A storage that hands each write to `write` before the memory storage takes it. */
function storageWith(
  write: (entries: readonly { entry: LogEntry; tenant: string | undefined }[]) => void,
): LogStorage {
  const inner = new InMemoryLogStorage();
  return {
    head: () => inner.head(),
    writeIfHead: (expected, entries) => {
      write(entries);
      return inner.writeIfHead(expected, entries);
    },
    entries: (after) => inner.entries(after),
    anchors: (query) => inner.anchors(query),
    lastCheckpoint: () => inner.lastCheckpoint(),
  };
}

const logged = async (log: AnchorLog, count: number) => (await anchorsOf(log)).length >= count;

describe('AnchorScheduler', () => {
  describe('given a burst of heads of one stream, one per turn of the event loop, within one interval', () => {
    it('signs the first at once and the last when the interval ends: two signatures, the final head last', async () => {
      const key = generateAnchorSigningKey();
      const log = memoryLog();
      // an interval long enough that the burst ends inside it even on a loaded machine
      // no batch delay: the interval alone decides (batching is the next case's)
      const scheduler = new AnchorScheduler({ key, log, intervalMs: 2_000, batchDelayMs: 0 });
      const started = Date.now();
      for (let revision = 0; revision < 100; revision += 1) {
        scheduler.note({ streamId: 'session-a', revision: BigInt(revision), headHash: hashOf(revision) });
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(Date.now() - started).toBeLessThan(2_000);
      expect((await anchorsOf(log)).map((anchor) => anchor.revision)).toEqual(['0']);
      let anchors = await anchorsOf(log);
      for (const deadline = Date.now() + 10_000; anchors.length < 2 && Date.now() < deadline;) {
        await pause(50);
        anchors = await anchorsOf(log);
      }
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect(anchors.map((anchor) => anchor.revision)).toEqual(['0', '99']);
      expect(anchors[1]!.headHash).toBe(hashOf(99));
      const keys = new Map([[key.keyId, { keyId: key.keyId, publicKey: key.publicKey }]]);
      expect(anchors.map((anchor) => checkAnchorSignature(anchor, keys))).toEqual(['valid', 'valid']);
      await scheduler.close();
    });
  });

  describe('given heads of many streams noted in one turn', () => {
    it('signs each stream once and writes them to the log in one append', async () => {
      const appends: (readonly { entry: LogEntry; tenant: string | undefined }[])[] = [];
      const log = new SignedLog(storageWith((entries) => appends.push(entries)));
      const scheduler = new AnchorScheduler({ key: generateAnchorSigningKey(), log, intervalMs: 200 });
      for (let stream = 0; stream < 50; stream += 1)
        scheduler.note({ streamId: `session-${stream}`, revision: 3n, headHash: hashOf(3), tenant: 'acme' });
      await until(() => appends.length > 0, 'the heads are written');
      expect(appends).toHaveLength(1);
      expect(appends[0]).toHaveLength(50);
      expect(appends[0]![0]).toMatchObject({
        tenant: 'acme',
        entry: { kind: 'anchor', stream: 'session-0', revision: '3' },
      });
      await scheduler.close();
    });
  });

  describe('given heads of many streams noted over several turns within the batch delay', () => {
    it('signs them together, in one write to the log', async () => {
      const appends: number[] = [];
      const log = new SignedLog(storageWith((entries) => appends.push(entries.length)));
      const scheduler = new AnchorScheduler({ key: generateAnchorSigningKey(), log, batchDelayMs: 5_000 });
      for (let stream = 0; stream < 20; stream += 1) {
        scheduler.note({ streamId: `session-${stream}`, revision: 1n, headHash: hashOf(1) });
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(appends).toEqual([]);
      await scheduler.flush();
      expect(appends).toEqual([20]);
      await scheduler.close();
    });
  });

  describe('given a head held inside its interval when the scheduler closes', () => {
    it('signs it on close, ignores older heads, and signs nothing after', async () => {
      const log = memoryLog();
      const scheduler = new AnchorScheduler({ key: generateAnchorSigningKey(), log, intervalMs: 60_000 });
      scheduler.note({ streamId: 'session-a', revision: 5n, headHash: hashOf(5) });
      await until(() => logged(log, 1), 'the first head is signed at once');
      scheduler.note({ streamId: 'session-a', revision: 9n, headHash: hashOf(9) });
      scheduler.note({ streamId: 'session-a', revision: 7n, headHash: hashOf(7) });
      scheduler.note({ streamId: 'session-a', revision: 4n, headHash: hashOf(4) });
      await scheduler.close();
      scheduler.note({ streamId: 'session-a', revision: 10n, headHash: hashOf(10) });
      // A window on purpose: a head noted after close must not be signed (it would be at once).
      await pause(10);
      expect((await anchorsOf(log)).map((anchor) => anchor.revision)).toEqual(['5', '9']);
    });
  });

  describe('given a head held inside its interval when its stream is erased', () => {
    it('signs nothing more of that stream, and the other streams as before', async () => {
      const log = memoryLog();
      const scheduler = new AnchorScheduler({ key: generateAnchorSigningKey(), log, intervalMs: 60_000 });
      scheduler.note({ streamId: 'session-a', revision: 5n, headHash: hashOf(5) });
      scheduler.note({ streamId: 'session-b', revision: 1n, headHash: hashOf(1) });
      await until(() => logged(log, 2), 'the first heads are signed at once');
      scheduler.note({ streamId: 'session-a', revision: 9n, headHash: hashOf(9) });
      scheduler.note({ streamId: 'session-b', revision: 2n, headHash: hashOf(2) });
      scheduler.forget('session-a');
      await scheduler.close();
      expect((await anchorsOf(log)).map((anchor) => `${anchor.stream}@${anchor.revision}`)).toEqual([
        'session-a@5',
        'session-b@1',
        'session-b@2',
      ]);
    });
  });

  describe('given a log that fails once', () => {
    it('reports the failure and signs the head again an interval later', async () => {
      let failures = 1;
      const errors: unknown[] = [];
      const log = new SignedLog(
        storageWith(() => {
          if (failures-- > 0) throw new Error('disk full');
        }),
      );
      const inner = log;
      const scheduler = new AnchorScheduler({
        key: generateAnchorSigningKey(),
        log,
        intervalMs: 50,
        onError: (error) => errors.push(error),
      });
      scheduler.note({ streamId: 'session-a', revision: 2n, headHash: hashOf(2) });
      await until(() => logged(inner, 1), 'the head is signed again after the failure');
      expect(errors).toHaveLength(1);
      expect((await anchorsOf(inner)).map((anchor) => anchor.revision)).toEqual(['2']);
      await scheduler.close();
    });
  });

  it('notes only the sealed head of appends to streams with the prefix', async () => {
    const log = memoryLog();
    const scheduler = new AnchorScheduler({ key: generateAnchorSigningKey(), log });
    const sealed = { id: 'e', type: 't', data: {}, metadata: { hash: hashOf(1), tenant: 'acme' } };
    scheduler.noteAppend('session-a', [sealed], { nextExpectedRevision: 1n, position: 9n }, 'session-');
    scheduler.noteAppend('other-b', [sealed], { nextExpectedRevision: 1n, position: 9n }, 'session-');
    scheduler.noteAppend(
      'session-c',
      [{ id: 'p', type: 't', data: {} }],
      { nextExpectedRevision: 0n, position: 10n },
      'session-',
    );
    await scheduler.close();
    expect((await anchorsOf(log)).map((anchor) => anchor.stream)).toEqual(['session-a']);
  });
});
