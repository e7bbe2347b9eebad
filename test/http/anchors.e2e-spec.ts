// Signed anchors over HTTP (issue 14): the engine signs the heads it writes, a burst of appends
// costing at most about one signature per session per second with its last head always signed
// (at the latest when the engine stops); the public key, a session's anchors and its raw event
// log are served; verification over HTTP catches a tail cut from the SQLite file.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  AnchorIndex,
  anchorFileCandidates,
  anchorSchema,
  boundedLines,
  checkAnchorSignature,
  verifyEventLines,
  anchorKeyIdOf,
  type Anchor,
} from '@strata/integrity';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { session } from '@strata/testing';
import { ALPHA_KEY, BETA_KEY, startHttpEngine, waitUntil, type HttpHarness } from './http-harness';

const TENANT_KEYS = `alpha:${ALPHA_KEY},beta:${BETA_KEY}`;

function anchorsOfText(text: string): Anchor[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => anchorSchema.parse(JSON.parse(line)));
}

async function* chunks(text: string): AsyncGenerator<string> {
  await Promise.resolve();
  yield text;
}

describe('signed anchors over HTTP', () => {
  let engine: HttpHarness | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
  });

  it('signs a burst of appends at most about once per second, and its last head when the engine stops', async () => {
    engine = await startHttpEngine({ environment: { STRATA_API_KEYS: TENANT_KEYS } });
    const built = session({ sessionId: 'burst' }).user('Start').assistant('Ok');
    await engine.seed(built.header, built.entries, ALPHA_KEY);
    const started = Date.now();
    let parentId = built.entries[built.entries.length - 1]!.id;
    const appends = 40;
    for (let index = 0; index < appends; index += 1) {
      const entry = {
        ...session({ sessionId: 'burst', idPrefix: `b${index}-` }).user(`Step ${index}`).entries[0]!,
        parentId,
      };
      const appended = await engine.request('POST', '/sessions/burst/entries', {
        body: { entries: [entry] },
        key: ALPHA_KEY,
      });
      expect(appended.status).toBe(200);
      parentId = entry.id;
    }
    const seconds = (Date.now() - started) / 1000;
    const head = (await engine.request('GET', '/sessions/burst', { key: ALPHA_KEY })).body as {
      revision: string;
    };
    const directory = engine.directory;
    await engine.close({ keepDirectory: true });
    engine = undefined;

    const database = new Database(join(directory, 'strata.db'), { readonly: true });
    const rows = database
      .prepare(
        "SELECT json_extract(entry, '$.revision') AS revision FROM store_log WHERE kind = 'anchor' AND stream_id = 'session-burst' ORDER BY position",
      )
      .all() as { revision: string }[];
    database.close();
    // One when the session starts, one per second of the burst and the one the interval holds.
    expect(rows.length).toBeLessThanOrEqual(Math.ceil(seconds) + 3);
    expect(rows.length).toBeLessThan(appends);
    expect(String(rows[rows.length - 1]!.revision)).toBe(head.revision);

    engine = await startHttpEngine({ directory, environment: { STRATA_API_KEYS: TENANT_KEYS } });
    const verified = await engine.request('GET', '/sessions/burst/verify', { key: ALPHA_KEY });
    expect(verified.body).toMatchObject({ ok: true, anchorsMatched: rows.length, findings: [] });
  });

  it("serves the public key without an API key, and a session's anchors and event log to its tenant only", async () => {
    const running = await startHttpEngine({ environment: { STRATA_API_KEYS: TENANT_KEYS } });
    engine = running;
    const built = session({ sessionId: 'served' }).user('Hello').assistant('Hi');
    await engine.seed(built.header, built.entries, ALPHA_KEY);

    const publicKey = await engine.request('GET', '/anchors/public-key');
    expect(publicKey.status).toBe(200);
    expect(publicKey.text).toContain('BEGIN PUBLIC KEY');
    const key = createPublicKey(publicKey.text);
    const keyId = anchorKeyIdOf(key);
    expect(publicKey.headers.get('x-strata-key-id')).toBe(keyId);

    let anchors: Anchor[] = [];
    await waitUntil(async () => {
      const answer = await running.request('GET', '/sessions/served/anchors', { key: ALPHA_KEY });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toContain('application/x-ndjson');
      anchors = anchorsOfText(answer.text);
      return anchors.length > 0;
    }, 'an anchor of the served session is listed');
    expect(anchors.length).toBeGreaterThan(0);
    expect(checkAnchorSignature(anchors[0]!, new Map([[keyId, { keyId, publicKey: key }]]))).toBe('valid');
    expect((await engine.request('GET', '/sessions/served/anchors', { key: BETA_KEY })).status).toBe(404);
    expect((await engine.request('GET', '/sessions/served/anchors')).status).toBe(401);
    expect(anchorsOfText((await engine.request('GET', '/anchors', { key: BETA_KEY })).text)).toEqual([]);
    expect(
      anchorsOfText((await engine.request('GET', '/anchors', { key: ALPHA_KEY })).text).length,
    ).toBeGreaterThan(0);
    expect(
      (await engine.request('GET', '/anchors?since=2999-01-01T00:00:00Z', { key: ALPHA_KEY })).text,
    ).toBe('');
    expect((await engine.request('GET', '/anchors?since=soon', { key: ALPHA_KEY })).status).toBe(400);
    const tenantAnchors = anchorsOfText((await engine.request('GET', '/anchors', { key: ALPHA_KEY })).text);
    const lastPosition = tenantAnchors.at(-1)!.position!;
    expect(tenantAnchors.map((anchor) => BigInt(anchor.position!))).toEqual(
      tenantAnchors.map((anchor) => BigInt(anchor.position!)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    expect((await engine.request('GET', `/anchors?after=${lastPosition}`, { key: ALPHA_KEY })).text).toBe('');
    const fromFirst = anchorsOfText(
      (await engine.request('GET', `/anchors?after=${tenantAnchors[0]!.position!}`, { key: ALPHA_KEY })).text,
    );
    expect(fromFirst).toEqual(tenantAnchors.slice(1));
    expect((await engine.request('GET', '/anchors?after=-1', { key: ALPHA_KEY })).status).toBe(400);
    // past the largest position a store holds (and past 64 bits): nothing after it, not a 500
    const pastTheEnd = await engine.request('GET', '/anchors?after=9999999999999999999', { key: ALPHA_KEY });
    expect(pastTheEnd.status).toBe(200);
    expect(pastTheEnd.text).toBe('');

    const events = await engine.request('GET', '/sessions/served/export?format=events', { key: ALPHA_KEY });
    expect(events.status).toBe(200);
    expect(events.headers.get('content-disposition')).toContain('served.events.jsonl');
    const anchorFile = join(engine.directory, 'anchors.jsonl');
    writeFileSync(anchorFile, anchors.map((anchor) => JSON.stringify(anchor)).join('\n'));
    const index = await AnchorIndex.build(
      anchorFileCandidates(anchorFile, 'anchors.jsonl'),
      new Map([[keyId, { keyId, publicKey: key }]]),
    );
    const offline = await verifyEventLines(boundedLines(chunks(events.text), 1 << 20), { anchors: index });
    index.close();
    expect(offline).toMatchObject({ ok: true, events: 3 });
    expect(offline.streams[0]!.anchorsMatched).toBe(anchors.length);
    expect(
      (await engine.request('GET', '/sessions/served/export?format=xml', { key: ALPHA_KEY })).status,
    ).toBe(400);
  });

  it('answers a verification that names the tail cut from the SQLite file', async () => {
    engine = await startHttpEngine();
    const built = session({ sessionId: 'cut' }).user('One').assistant('Two').user('Three').assistant('Four');
    await engine.seed(built.header, built.entries);
    const directory = engine.directory;
    await engine.close({ keepDirectory: true });
    const database = new Database(join(directory, 'strata.db'));
    database.prepare("DELETE FROM events WHERE stream_id = 'session-cut' AND stream_revision >= 3").run();
    database.close();
    engine = await startHttpEngine({ directory });
    const verified = await engine.request('GET', '/sessions/cut/verify');
    expect(verified.status).toBe(200);
    const body = verified.body as { ok: boolean; findings: { kind: string; message: string }[] };
    expect(body.ok).toBe(false);
    expect(body.findings.map((finding) => finding.kind)).toEqual(['tail_missing', 'anchor_not_reached']);
    expect(body.findings[0]!.message).toBe(
      "session-cut: the store records revision 4 as the stream's last, but the chain ends at revision 2: the last 2 events are missing",
    );
    const tenant = await engine.request('GET', '/verify');
    expect(tenant.body).toMatchObject({ ok: false, sessions: 1 });
    expect((tenant.body as { findings: { sessionId: string }[] }).findings[0]).toMatchObject({
      sessionId: 'cut',
      kind: 'tail_missing',
    });
  });

  it('accepts the anchors of a rotated key only when STRATA_ANCHOR_PUBLIC_KEYS names its public key', async () => {
    const keys = mkdtempSync(join(tmpdir(), 'strata-keys-'));
    const keyFile = (name: string) => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      writeFileSync(join(keys, `${name}.pem`), privateKey.export({ type: 'pkcs8', format: 'pem' }));
      writeFileSync(join(keys, `${name}.pub.pem`), publicKey.export({ type: 'spki', format: 'pem' }));
      return join(keys, `${name}.pem`);
    };
    const [oldKey, newKey] = [keyFile('old'), keyFile('new')];
    try {
      engine = await startHttpEngine({ environment: { STRATA_SIGNING_KEY_FILE: oldKey } });
      const built = session({ sessionId: 'rotated' }).user('One').assistant('Two');
      await engine.seed(built.header, built.entries);
      const directory = engine.directory;
      await engine.close({ keepDirectory: true });

      engine = await startHttpEngine({ directory, environment: { STRATA_SIGNING_KEY_FILE: newKey } });
      const refused = (await engine.request('GET', '/sessions/rotated/verify')).body as {
        ok: boolean;
        refusedAnchors: { reason: string }[];
      };
      expect(refused.ok).toBe(false);
      expect(refused.refusedAnchors.map((anchor) => anchor.reason)).toContain('unknown_key');
      await engine.close({ keepDirectory: true });

      engine = await startHttpEngine({
        directory,
        environment: {
          STRATA_SIGNING_KEY_FILE: newKey,
          STRATA_ANCHOR_PUBLIC_KEYS: ` ${join(keys, 'old.pub.pem')} ,`,
        },
      });
      const accepted = await engine.request('GET', '/sessions/rotated/verify');
      expect(accepted.body).toMatchObject({ ok: true, refusedAnchorCount: 0 });
      expect((accepted.body as { anchorsMatched: number }).anchorsMatched).toBeGreaterThan(0);
      await engine.close({ keepDirectory: true });
      engine = undefined;

      await expect(
        startHttpEngine({
          directory,
          environment: {
            STRATA_SIGNING_KEY_FILE: newKey,
            STRATA_ANCHOR_PUBLIC_KEYS: join(keys, 'missing.pem'),
          },
        }),
      ).rejects.toThrow(/STRATA_ANCHOR_PUBLIC_KEYS: .*missing\.pem does not exist/);
      rmSync(directory, { recursive: true, force: true });
    } finally {
      rmSync(keys, { recursive: true, force: true });
    }
  });
});
