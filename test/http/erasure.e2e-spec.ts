// End to end over real HTTP: audited erasure (issue 14) by two engines on one SQLite file. Only an
// admin key erases; afterwards neither engine shows anything of the session, the erasure record
// is listed, reads answer 410 with it, and a re-import is refused unless asked for explicitly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { openEventStream } from './sse-client';
import {
  ALPHA_KEY,
  AUDITOR_KEY,
  BETA_KEY,
  problemOf,
  startHttpEngine,
  type HttpHarness,
} from './http-harness';

const ADMIN_KEY = 'alpha-admin-0123456789abcd';
const BETA_ADMIN_KEY = 'beta-admin-0123456789abcde';
const KEYS = `alpha:${ALPHA_KEY},beta:${BETA_KEY},alpha:${AUDITOR_KEY}:read,alpha:dpo:${ADMIN_KEY}:admin,beta:ops:${BETA_ADMIN_KEY}:admin`;

const doomed = session({ sessionId: 'erase-me', cwd: '/alpha/secret-project' })
  .editTurns(3)
  .user('the zanzibar migration plan')
  .assistant('Noted.');
const kept = session({ sessionId: 'keep-me', cwd: '/alpha/other' }).editTurns(2);

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The sessions whose events `GET /events?from=start` replays to tenant alpha. */
async function replayedSessions(engine: HttpHarness): Promise<Set<string>> {
  const stream = await openEventStream(`${engine.url}/events?from=start`, {
    authorization: `Bearer ${ALPHA_KEY}`,
  });
  expect(stream.status).toBe(200);
  await stream.waitForComment((comment) => comment.startsWith('caught up'));
  stream.close();
  return new Set(stream.events.map((event) => event.json.sessionId));
}

describe('given two engines on one SQLite file and a session of tenant alpha', () => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-erasure-'));
  let first: HttpHarness;
  let second: HttpHarness;

  beforeAll(async () => {
    const environment = { STRATA_API_KEYS: KEYS };
    first = await startHttpEngine({ directory, environment: { ...environment, STRATA_ENGINE_ID: 'a' } });
    second = await startHttpEngine({ directory, environment: { ...environment, STRATA_ENGINE_ID: 'b' } });
    await first.seed(doomed.header, doomed.entries, ALPHA_KEY);
    await first.seed(kept.header, kept.entries, ALPHA_KEY);
    // The second engine has read the session (its caches hold it) before the erasure.
    for (const path of ['', '/context', '/tree', '/entries', '/attempts', '/events']) {
      expect((await second.request('GET', `/sessions/erase-me${path}`, { key: ALPHA_KEY })).status).toBe(200);
    }
    // ...its search read model has indexed it, and the event stream replays it
    await eventually(async () => {
      const found = await second.request('GET', '/sessions?q=zanzibar', { key: ALPHA_KEY });
      return (found.body as { items: { sessionId: string }[] }).items.some(
        (item) => item.sessionId === 'erase-me',
      );
    }, 'the search finds the session');
    expect(await replayedSessions(second)).toContain('erase-me');
  }, 60_000);

  afterAll(async () => {
    await second?.close();
    await first?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('refuses read and read_write keys (403), wants a reason, and hides another tenant’s session (404)', async () => {
    for (const key of [AUDITOR_KEY, ALPHA_KEY]) {
      const refused = await first.request('DELETE', '/sessions/erase-me', { key, body: { reason: 'x' } });
      expect(refused.status).toBe(403);
    }
    const noReason = await first.request('DELETE', '/sessions/erase-me', { key: ADMIN_KEY });
    expect(problemOf(noReason)).toMatchObject({ status: 400, code: 'validation' });
    const tooLong = await first.request('DELETE', '/sessions/erase-me', {
      key: ADMIN_KEY,
      body: { reason: 'x'.repeat(1_001) },
    });
    expect(tooLong.status).toBe(400);
    const otherTenant = await first.request('DELETE', '/sessions/erase-me', {
      key: BETA_ADMIN_KEY,
      body: { reason: 'not mine' },
    });
    expect(otherTenant.status).toBe(404);
    expect((await first.request('GET', '/sessions/erase-me', { key: ALPHA_KEY })).status).toBe(200);
  });

  describe('when an admin key erases it', () => {
    let record: Record<string, unknown>;

    beforeAll(async () => {
      const erased = await first.request('DELETE', '/sessions/erase-me?reason=GDPR%20art.%2017', {
        key: ADMIN_KEY,
      });
      expect(erased.status).toBe(200);
      record = erased.body as Record<string, unknown>;
    });

    it('answers the erasure record: who, why, how many, the head', () => {
      expect(record).toMatchObject({
        sessionId: 'erase-me',
        streamId: 'session-erase-me',
        actor: 'dpo',
        reason: 'GDPR art. 17',
        tenant: 'alpha',
      });
      expect(record['eventCount']).toBeGreaterThan(3);
      expect(record['headHash']).toMatch(/^[0-9a-f]{64}$/);
      expect(record['headRevision']).toBe(String((record['eventCount'] as number) - 1));
    });

    it('leaves nothing of the session readable in either engine, and the other session intact', async () => {
      for (const engine of [first, second]) {
        await eventually(async () => {
          const list = await engine.request('GET', '/sessions', { key: ALPHA_KEY });
          const ids = (list.body as { items: { sessionId: string }[] }).items.map((item) => item.sessionId);
          return !ids.includes('erase-me') && ids.includes('keep-me');
        }, 'the list forgets the session');
        const detail = await engine.request('GET', '/sessions/erase-me', { key: ALPHA_KEY });
        expect(problemOf(detail)).toMatchObject({
          status: 410,
          code: 'gone',
          reason: 'session_erased',
          erasure: { actor: 'dpo', reason: 'GDPR art. 17' },
        });
        for (const path of [
          '/context',
          '/tree',
          '/entries',
          '/attempts',
          '/export',
          '/export?format=events',
          '/events',
          '/anchors',
        ]) {
          const read = await engine.request('GET', `/sessions/erase-me${path}`, { key: ALPHA_KEY });
          expect([path, read.status]).toEqual([path, 410]);
          expect(read.text).not.toContain('secret-project');
          expect(read.text).not.toContain('zanzibar');
        }
        const found = await engine.request('GET', '/sessions?q=zanzibar', { key: ALPHA_KEY });
        expect((found.body as { items: unknown[] }).items).toEqual([]);
        const replayed = await replayedSessions(engine);
        expect(replayed.has('erase-me')).toBe(false);
        expect(replayed.has('keep-me')).toBe(true);
        const verified = await engine.request('GET', '/sessions/erase-me/verify', { key: ALPHA_KEY });
        expect([verified.status, verified.body]).toMatchObject([
          200,
          { ok: true, erasure: { actor: 'dpo', reason: 'GDPR art. 17' } },
        ]);
        const attempts = await engine.request('GET', '/attempts', { key: ALPHA_KEY });
        expect(attempts.text).not.toContain('erase-me');
        const search = await engine.request('GET', '/sessions?text=secret-project', { key: ALPHA_KEY });
        expect((search.body as { total: number }).total).toBe(0);
        expect((await engine.request('GET', '/sessions/keep-me/context', { key: ALPHA_KEY })).status).toBe(
          200,
        );
        expect((await engine.request('GET', '/sessions/erase-me', { key: BETA_KEY })).status).toBe(404);
      }
    });

    it('lists the record in GET /erasures of its tenant only', async () => {
      const alpha = await second.request('GET', '/erasures', { key: AUDITOR_KEY });
      expect(alpha.status).toBe(200);
      expect(alpha.body).toMatchObject({ total: 1, items: [{ sessionId: 'erase-me', actor: 'dpo' }] });
      const beta = await second.request('GET', '/erasures', { key: BETA_KEY });
      expect(beta.body).toMatchObject({ total: 0, items: [] });
    });

    it('answers 410 with the record when erased again', async () => {
      const again = await second.request('DELETE', '/sessions/erase-me', {
        key: ADMIN_KEY,
        body: { reason: 'again' },
      });
      expect(problemOf(again)).toMatchObject({ status: 410, reason: 'session_erased' });
    });

    it('refuses to import or start the session again (409 session_erased) unless allowErased=true', async () => {
      const file = serializeSessionFile(doomed.header, doomed.entries);
      const refused = await second.request('POST', '/sessions/import', {
        rawBody: file,
        contentType: 'application/x-ndjson',
        key: ALPHA_KEY,
      });
      expect(problemOf(refused)).toMatchObject({ status: 409, reason: 'session_erased' });
      const started = await second.request('POST', '/sessions', {
        body: { sessionId: 'erase-me', cwd: '/x' },
        key: ALPHA_KEY,
      });
      expect(problemOf(started)).toMatchObject({ status: 409, reason: 'session_erased' });
      const allowed = await second.request('POST', '/sessions/import?allowErased=true', {
        rawBody: file,
        contentType: 'application/x-ndjson',
        key: ALPHA_KEY,
      });
      expect(allowed.status).toBe(201);
      for (const engine of [first, second]) {
        await eventually(
          async () => (await engine.request('GET', '/sessions/erase-me', { key: ALPHA_KEY })).status === 200,
          'the re-imported session is read',
        );
      }
    });
  });
});
