// End to end over real HTTP: tenants by API key. No endpoint and no event stream shows one
// tenant another tenant's sessions or events; a read-only key cannot write; every event records
// its tenant and the hash chains still verify.
import { sessionStreamName, serializeSessionFile } from '@strata/session';
import { session, type SessionBuilder } from '@strata/testing';
import type { EventStore } from '@strata/event-store';
import { EVENT_STORE } from '../../apps/engine/src/shared/injection-tokens';
import {
  ALPHA_KEY,
  AUDITOR_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  problemOf,
  startHttpEngine,
  type HttpHarness,
} from './http-harness';
import { openEventStream } from './sse-client';

function turns(builder: SessionBuilder, count: number): SessionBuilder {
  return builder.editTurns(count);
}

const alphaSession = turns(session({ sessionId: 'tenant-alpha-1', cwd: '/alpha' }), 3);
const betaSession = turns(session({ sessionId: 'tenant-beta-1', cwd: '/beta' }), 2);
const alphaId = alphaSession.header.id;

describe('given two tenants with a session each', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({
      environment: { STRATA_API_KEYS: TWO_TENANT_KEYS },
      settings: { compaction: { keepRecentTokens: 250 } },
    });
    await engine.seed(alphaSession.header, alphaSession.entries, ALPHA_KEY);
    await engine.seed(betaSession.header, betaSession.entries, BETA_KEY);
    const compacted = await engine.request('POST', `/sessions/${alphaId}/compact`, {
      body: {},
      key: ALPHA_KEY,
    });
    expect(compacted.body).toMatchObject({ outcome: 'completed' });
  });

  afterAll(() => engine.close());

  describe('authentication', () => {
    it('answers 401 without a key, with an unknown key, or with two different keys', async () => {
      const missing = await engine.request('GET', '/sessions');
      expect(problemOf(missing).code).toBe('unauthorized');
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await engine.request('GET', '/sessions', { key: 'not-a-key-0123456789' })).status).toBe(401);
      const clash = await engine.request('GET', '/sessions', {
        key: ALPHA_KEY,
        headers: { 'x-api-key': BETA_KEY },
      });
      expect(problemOf(clash).code).toBe('unauthorized');
      expect((await engine.request('GET', '/events')).status).toBe(401);
    });

    it('accepts the key as x-api-key too', async () => {
      const response = await engine.request('GET', '/sessions', { headers: { 'x-api-key': BETA_KEY } });
      expect(response.status).toBe(200);
    });

    it('serves health, readiness, metrics and the documentation without a key', async () => {
      for (const path of ['/health', '/ready', '/metrics', '/docs', '/docs/openapi.json']) {
        expect((await engine.request('GET', path)).status).toBe(200);
      }
    });

    it('lets a read-only key read and subscribe but answers its writes 403', async () => {
      expect((await engine.request('GET', `/sessions/${alphaId}`, { key: AUDITOR_KEY })).status).toBe(200);
      const write = await engine.request('POST', `/sessions/${alphaId}/labels`, {
        body: { targetId: alphaSession.entries[0]!.id, label: 'x' },
        key: AUDITOR_KEY,
      });
      expect(write.status).toBe(403);
      expect(problemOf(write).code).toBe('forbidden');
    });
  });

  describe("another tenant's session", () => {
    it.each([
      ['GET', ''],
      ['GET', '/context'],
      ['GET', `/context?asOf=1`],
      ['GET', '/tree'],
      ['GET', '/entries'],
      ['GET', '/attempts'],
      ['GET', '/export'],
      ['GET', '/verify'],
    ])('answers %s %s with 404, as for a missing session', async (method, suffix) => {
      const response = await engine.request(method, `/sessions/${alphaId}${suffix}`, { key: BETA_KEY });
      expect(response.status).toBe(404);
      expect(problemOf(response)).toMatchObject({ code: 'not_found', detail: 'session not found' });
      expect(response.text).not.toContain('/alpha');
    });

    it.each([
      ['/entries', { entries: betaSession.entries }],
      ['/compact', {}],
      ['/navigate', { targetId: alphaSession.entries[0]!.id }],
      ['/abort', {}],
      ['/labels', { targetId: alphaSession.entries[0]!.id, label: 'mine' }],
    ])('answers POST %s with 404 and writes nothing', async (suffix, body) => {
      const before = await engine.request('GET', `/sessions/${alphaId}/verify`, { key: ALPHA_KEY });
      const response = await engine.request('POST', `/sessions/${alphaId}${suffix}`, { body, key: BETA_KEY });
      expect(response.status).toBe(404);
      const after = await engine.request('GET', `/sessions/${alphaId}/verify`, { key: ALPHA_KEY });
      expect((after.body as { events: number }).events).toBe((before.body as { events: number }).events);
    });

    it('cannot be taken over by starting or importing a session of the same id', async () => {
      const start = await engine.request('POST', '/sessions', {
        body: { sessionId: alphaId, cwd: '/beta' },
        key: BETA_KEY,
      });
      expect(problemOf(start).code).toBe('conflict');
      expect(start.text).not.toContain('/alpha');
      const imported = await engine.request('POST', '/sessions/import', {
        rawBody: serializeSessionFile(alphaSession.header, alphaSession.entries),
        contentType: 'application/x-ndjson',
        key: BETA_KEY,
      });
      expect(problemOf(imported).code).toBe('conflict');
      const stillAlpha = await engine.request('GET', `/sessions/${alphaId}`, { key: ALPHA_KEY });
      expect(stillAlpha.body).toMatchObject({ tenant: 'alpha', cwd: '/alpha' });
    });

    it('cannot be subscribed to', async () => {
      const response = await engine.request('GET', `/events?session=${alphaId}`, { key: BETA_KEY });
      expect(problemOf(response).code).toBe('not_found');
    });
  });

  describe('lists', () => {
    it('show each tenant its own sessions, attempts and verifications only', async () => {
      const alpha = await engine.request('GET', '/sessions', { key: ALPHA_KEY });
      const beta = await engine.request('GET', '/sessions', { key: BETA_KEY });
      expect((alpha.body as { items: { sessionId: string; tenant: string }[] }).items).toEqual([
        expect.objectContaining({ sessionId: alphaId, tenant: 'alpha' }),
      ]);
      expect((beta.body as { items: { sessionId: string }[] }).items.map((item) => item.sessionId)).toEqual([
        'tenant-beta-1',
      ]);
      expect((await engine.request('GET', '/attempts', { key: BETA_KEY })).body).toMatchObject({
        total: 0,
        items: [],
      });
      expect((await engine.request('GET', '/attempts', { key: ALPHA_KEY })).body).toMatchObject({ total: 1 });
      expect((await engine.request('GET', '/verify', { key: BETA_KEY })).body).toMatchObject({
        ok: true,
        sessions: 1,
      });
    });
  });

  describe('the event stream', () => {
    it("never carries another tenant's events, from the log or live", async () => {
      const stream = await openEventStream(`${engine.url}/events?from=start`, {
        authorization: `Bearer ${BETA_KEY}`,
      });
      await stream.waitForComment((comment) => comment.startsWith('caught up'));
      const history = stream.events.length;
      expect(history).toBe(1 + betaSession.entries.length);
      await engine.request('POST', `/sessions/${alphaId}/labels`, {
        body: { targetId: alphaSession.entries[0]!.id, label: 'alpha-live' },
        key: ALPHA_KEY,
      });
      await engine.request('POST', '/sessions/tenant-beta-1/labels', {
        body: { targetId: betaSession.entries[0]!.id, label: 'beta-live' },
        key: BETA_KEY,
      });
      await stream.waitForEvents(history + 1);
      await stream.waitForComment((comment) => comment === 'heartbeat');
      expect(stream.events).toHaveLength(history + 1);
      expect(new Set(stream.events.map((event) => event.json.sessionId))).toEqual(new Set(['tenant-beta-1']));
      expect(stream.events.map((event) => event.data).join('\n')).not.toContain('alpha');
      stream.close();
    });
  });

  describe('the store', () => {
    it('records the tenant on every event of a session, and its hash chain verifies', async () => {
      const store = engine.app.get<EventStore>(EVENT_STORE);
      const tenants = new Set<unknown>();
      let count = 0;
      for await (const event of store.readStream(sessionStreamName(alphaId))) {
        tenants.add(event.metadata['tenant']);
        count += 1;
      }
      expect(count).toBeGreaterThan(alphaSession.entries.length + 3);
      expect([...tenants]).toEqual(['alpha']);
      const verified = await engine.request('GET', `/sessions/${alphaId}/verify`, { key: ALPHA_KEY });
      expect(verified.body).toMatchObject({ ok: true, brokenAt: null });
    });
  });
});
