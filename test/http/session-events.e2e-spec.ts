// GET /sessions/{id}/events over real HTTP: the raw events of a session as the store holds them,
// paged by revision, with their hashes chained; another tenant's session is not found; bad pages
// are refused.
import { session } from '@strata/testing';
import {
  ALPHA_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  startHttpEngine,
  storedEventsOf,
  type HttpHarness,
} from './http-harness';

interface EventsPage {
  readonly sessionId: string;
  readonly events: readonly {
    readonly revision: string;
    readonly position: string;
    readonly type: string;
    readonly id: string;
    readonly actor: string | null;
    readonly time: string;
    readonly hash: string | null;
    readonly previousHash: string | null;
  }[];
  readonly next: string | null;
}

describe('GET /sessions/{id}/events', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ environment: { STRATA_API_KEYS: `${TWO_TENANT_KEYS}` } });
    const built = session({ sessionId: 'raw-events' }).user('one').assistant('two').user('three');
    await engine.seed(built.header, built.entries, ALPHA_KEY);
  });

  afterAll(async () => {
    await engine?.close();
  });

  it('pages through every event of the stream in revision order, hashes chained', async () => {
    const stored = await storedEventsOf(engine, 'raw-events');
    const seen: EventsPage['events'][number][] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const query: string = after === null ? '?limit=2' : `?limit=2&after=${after}`;
      const answer = await engine.request('GET', `/sessions/raw-events/events${query}`, { key: ALPHA_KEY });
      expect(answer.status).toBe(200);
      const page = answer.body as EventsPage;
      expect(page.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.events);
      after = page.next;
      pages += 1;
    } while (after !== null && pages < 20);
    expect(seen.map((event) => event.revision)).toEqual(stored.map((event) => event.revision.toString()));
    expect(seen.map((event) => event.id)).toEqual(stored.map((event) => event.id));
    expect(seen[0]).toMatchObject({ type: 'SessionStarted', actor: expect.any(String) as string });
    for (let index = 1; index < seen.length; index += 1) {
      expect(seen[index]?.previousHash).toBe(seen[index - 1]?.hash);
    }
    expect(seen.every((event) => /^[0-9a-f]{64}$/.test(event.hash ?? ''))).toBe(true);
    expect(Number(seen[1]?.position)).toBeGreaterThan(Number(seen[0]?.position));
  });

  it('answers an empty last page after the head, and a default page', async () => {
    const all = (await engine.request('GET', '/sessions/raw-events/events', { key: ALPHA_KEY }))
      .body as EventsPage;
    expect(all.next).toBeNull();
    const last = all.events.at(-1)?.revision ?? '0';
    const after = (
      await engine.request('GET', `/sessions/raw-events/events?after=${last}`, { key: ALPHA_KEY })
    ).body as EventsPage;
    expect(after).toEqual({ sessionId: 'raw-events', events: [], next: null });
  });

  it("is not found for another tenant's session and refuses a bad page", async () => {
    expect((await engine.request('GET', '/sessions/raw-events/events', { key: BETA_KEY })).status).toBe(404);
    for (const query of ['?limit=0', '?limit=1001', '?after=-1', '?after=x', '?other=1']) {
      const answer = await engine.request('GET', `/sessions/raw-events/events${query}`, { key: ALPHA_KEY });
      expect(answer.status).toBe(400);
    }
  });

  it('is in the OpenAPI document', async () => {
    const document = (await engine.request('GET', '/docs/openapi.json')).body as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    expect(document.paths['/sessions/{sessionId}/events']?.['get']?.operationId).toBe('listSessionEvents');
  });
});
