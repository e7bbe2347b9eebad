// The checks of audited erasure (issue 14) by two engines on one store, over real HTTP: only an
// admin key erases; afterwards neither engine shows anything of the session (catalog, context,
// tree, entries, attempts, exports, event stream replay, search), the erasure record is listed
// and answered with every read (410), and a re-import is refused unless asked for explicitly
// (where the store can write an erased stream again at all).
import type { EventStore } from '@strata/event-store';
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { EngineAnchors } from '../../apps/engine/src/anchors/engine-anchors';
import { EVENT_STORE } from '../../apps/engine/src/shared/injection-tokens';
import { openEventStream } from './sse-client';
import {
  ALPHA_KEY,
  AUDITOR_KEY,
  BETA_KEY,
  problemOf,
  startHttpEngine,
  waitUntil,
  type HttpHarness,
} from './http-harness';

/** Where the two engines run. */
export interface ErasureStores {
  /** The engines' directory (their SQLite store file, when they use one). */
  readonly directory: string;
  /** The environment of engine `engineId` (`a` or `b`) that points it at the shared store. */
  environmentOf(engineId: string): Record<string, string>;
  /** What an import of an erased session id with `allowErased=true` does on this store. */
  readonly reimport: 'revives' | 'refused';
  stop(): Promise<void>;
}

const ADMIN_KEY = 'alpha-admin-0123456789abcd';
const BETA_ADMIN_KEY = 'beta-admin-0123456789abcde';
const KEYS = `alpha:${ALPHA_KEY},beta:${BETA_KEY},alpha:${AUDITOR_KEY}:read,alpha:dpo:${ADMIN_KEY}:admin,beta:ops:${BETA_ADMIN_KEY}:admin`;

const doomed = session({ sessionId: 'erase-me', cwd: '/alpha/secret-project' })
  .editTurns(3)
  .user('the zanzibar migration plan')
  .assistant('Noted.');
const kept = session({ sessionId: 'keep-me', cwd: '/alpha/other' }).editTurns(2);

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

/** Declares the erasure checks by two engines on the stores that `start` makes. */
export function describeErasureByTwoEngines(where: string, start: () => Promise<ErasureStores>): void {
  describe(`given two engines on ${where} and a session of tenant alpha`, () => {
    let stores: ErasureStores;
    let first: HttpHarness;
    let second: HttpHarness;

    beforeAll(async () => {
      stores = await start();
      const engine = (engineId: string) =>
        startHttpEngine({
          directory: stores.directory,
          environment: {
            STRATA_API_KEYS: KEYS,
            STRATA_ENGINE_ID: engineId,
            ...stores.environmentOf(engineId),
          },
        });
      first = await engine('a');
      second = await engine('b');
      await first.seed(doomed.header, doomed.entries, ALPHA_KEY);
      await first.seed(kept.header, kept.entries, ALPHA_KEY);
      // The second engine has read the session (its caches hold it) before the erasure...
      for (const path of ['', '/context', '/tree', '/entries', '/attempts', '/events']) {
        expect((await second.request('GET', `/sessions/erase-me${path}`, { key: ALPHA_KEY })).status).toBe(
          200,
        );
      }
      // ...its search read model has indexed it, and the event stream replays it
      await waitUntil(async () => {
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
      await stores?.stop();
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
          await waitUntil(async () => {
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

      it('keeps the record in the store itself, as each engine reads it', async () => {
        for (const engine of [first, second]) {
          const records = await engine.app.get<EventStore>(EVENT_STORE).listErasures('session-erase-me');
          expect(records).toHaveLength(1);
          expect(records[0]).toMatchObject({
            streamId: 'session-erase-me',
            actor: 'dpo',
            reason: 'GDPR art. 17',
            eventCount: record['eventCount'],
            headHash: record['headHash'],
          });
          expect(String(records[0]!.headRevision)).toBe(record['headRevision']);
        }
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
        if (stores.reimport === 'refused') {
          // a hard delete is final: the store cannot write the stream again, and says so
          const gone = problemOf(allowed);
          expect(gone).toMatchObject({
            status: 410,
            reason: 'session_erased',
            erasure: { actor: 'dpo', reason: 'GDPR art. 17' },
          });
          expect(gone.detail).toContain('cannot be written again');
          expect((await first.request('GET', '/sessions/erase-me', { key: ALPHA_KEY })).status).toBe(410);
          return;
        }
        expect(allowed.status).toBe(201);
        for (const engine of [first, second]) {
          await waitUntil(
            async () =>
              (await engine.request('GET', '/sessions/erase-me', { key: ALPHA_KEY })).status === 200,
            'the re-imported session is read',
          );
        }
      });
    });

    it('signs no anchor of a session after erasing it, though a head of it was held to be signed', async () => {
      const quick = session({ sessionId: 'erase-quickly' }).editTurns(1).user('one more');
      const last = quick.entries[quick.entries.length - 1]!;
      await first.seed(quick.header, quick.entries.slice(0, -1), ALPHA_KEY);
      // once the seed's head is signed, the next head is held for the rest of the anchor interval
      const anchors = first.app.get(EngineAnchors);
      await waitUntil(async () => {
        for await (const anchor of anchors.log!.read({ streamId: 'session-erase-quickly' }))
          return anchor !== undefined;
        return false;
      }, "the seed's head is signed");
      const appended = await first.request('POST', '/sessions/erase-quickly/entries', {
        key: ALPHA_KEY,
        body: { entries: [last] },
      });
      expect(appended.status).toBe(200);
      const erased = await first.request('DELETE', '/sessions/erase-quickly', {
        key: ADMIN_KEY,
        body: { reason: 'at once' },
      });
      expect(erased.status).toBe(200);
      const { erasedAt } = erased.body as { erasedAt: string };
      // Instead of waiting out the interval: the scheduler signs every head it still holds now and
      // waits until the log has them, so a head the erasure failed to drop would be signed here.
      await anchors.scheduler!.flush();
      const signed: { revision: string; time: string }[] = [];
      for await (const anchor of anchors.log!.read({ streamId: 'session-erase-quickly' }))
        signed.push(anchor);
      expect(signed.length).toBeGreaterThan(0);
      // the held head, had the erasure not dropped it, would be signed by the flush, after the erasure
      expect(signed.every((anchor) => anchor.time <= erasedAt)).toBe(true);
      const verified = await first.request('GET', '/sessions/erase-quickly/verify', { key: ALPHA_KEY });
      expect(verified.body).toMatchObject({ ok: true, erasure: { reason: 'at once' } });
    });
  });
}
