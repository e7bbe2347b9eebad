// End to end over real HTTP: the writer lease of a session. One holder at a time; while it is in
// force every write bears its token; it is renewed, released, and freed by expiry; tokens fence
// late writes; two engines on one store honour the same lease; the audit (the stream) records it.
import { problemOf, startHttpEngine, storedEventsOf, waitUntil, type HttpHarness } from './http-harness';
import { callEntry, resultEntry, userEntry } from './host-turns';

interface Lease {
  token: string;
  holder: string;
  expiresAt: string;
  sequence: number;
}

describe('given an engine and a started session', () => {
  let engine: HttpHarness;
  let counter = 0;

  beforeAll(async () => {
    engine = await startHttpEngine();
  });

  afterAll(() => engine.close());

  async function startSession(): Promise<string> {
    counter += 1;
    const sessionId = `lease-${counter}`;
    const started = await engine.request('POST', '/sessions', { body: { sessionId, cwd: '/work' } });
    expect(started.status).toBe(201);
    const first = await engine.request('POST', `/sessions/${sessionId}/entries`, {
      body: { entries: [userEntry('u0', null)] },
    });
    expect(first.status).toBe(200);
    return sessionId;
  }

  const take = (sessionId: string, body: Record<string, unknown>, on = engine) =>
    on.request('POST', `/sessions/${sessionId}/lease`, { body });
  const append = (sessionId: string, body: Record<string, unknown>, on = engine) =>
    on.request('POST', `/sessions/${sessionId}/entries`, { body });

  it('gives the lease to one holder; another is told who holds it and until when', async () => {
    const sessionId = await startSession();

    const first = await take(sessionId, { holder: 'host-a', ttlMs: 60_000 });
    const second = await take(sessionId, { holder: 'host-b', ttlMs: 60_000 });

    expect(first.status).toBe(200);
    const lease = first.body as Lease;
    expect(lease).toMatchObject({ holder: 'host-a', sequence: 1 });
    expect(lease.token).toMatch(/^1\./);
    expect(Date.parse(lease.expiresAt)).toBeGreaterThan(Date.now());
    expect(second.status).toBe(409);
    expect(problemOf(second)).toMatchObject({
      reason: 'lease_held',
      holder: 'host-a',
      expiresAt: lease.expiresAt,
    });
  });

  it('refuses a ttl outside 1,000–600,000 ms, and a take without a holder', async () => {
    const sessionId = await startSession();
    for (const body of [{ holder: 'h', ttlMs: 999 }, { holder: 'h', ttlMs: 600_001 }, { ttlMs: 5_000 }]) {
      expect((await take(sessionId, body)).status).toBe(400);
    }
  });

  it('makes every write bear the token while the lease is in force', async () => {
    const sessionId = await startSession();
    const lease = (await take(sessionId, { holder: 'host-a', ttlMs: 60_000 })).body as Lease;

    const writes = [
      ['entries', { entries: [userEntry('u1', 'u0')] }],
      ['labels', { targetId: 'u0', label: 'start' }],
      ['compact', {}],
      ['navigate', { targetId: 'u0' }],
    ] as const;
    for (const [path, body] of writes) {
      const refused = await engine.request('POST', `/sessions/${sessionId}/${path}`, { body });
      expect([path, refused.status]).toEqual([path, 409]);
      expect(problemOf(refused)).toMatchObject({ reason: 'lease_held', holder: 'host-a' });
    }
    const withToken = await append(sessionId, { entries: [userEntry('u1', 'u0')], leaseToken: lease.token });
    expect(withToken.status).toBe(200);
    const label = await engine.request('POST', `/sessions/${sessionId}/labels`, {
      body: { targetId: 'u0', label: 'start', leaseToken: lease.token },
    });
    expect(label.status).toBe(200);
  });

  it('answers a repeated append (same idempotency key) as the first, even once a lease is taken', async () => {
    const sessionId = await startSession();
    const body = { entries: [userEntry('u1', 'u0')], idempotencyKey: 'turn-1' };
    const first = await append(sessionId, body);
    expect(first.status).toBe(200);
    await take(sessionId, { holder: 'host-b', ttlMs: 60_000 });

    const repeated = await append(sessionId, body);
    const fresh = await append(sessionId, {
      ...body,
      idempotencyKey: 'turn-2',
      entries: [userEntry('u2', 'u1')],
    });

    expect(repeated.status).toBe(200);
    expect(repeated.body).toMatchObject({ alreadyAppended: true, entryIds: ['u1'] });
    expect(problemOf(fresh)).toMatchObject({ reason: 'lease_held', holder: 'host-b' });
  });

  it('renews with the token (same token, later expiry) and releases with it', async () => {
    const sessionId = await startSession();
    const lease = (await take(sessionId, { holder: 'host-a', ttlMs: 5_000 })).body as Lease;

    const renewed = await take(sessionId, { token: lease.token, ttlMs: 120_000 });
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ token: lease.token, holder: 'host-a', sequence: 1 });
    expect(Date.parse((renewed.body as Lease).expiresAt)).toBeGreaterThan(Date.parse(lease.expiresAt));

    const released = await engine.request('DELETE', `/sessions/${sessionId}/lease?token=${lease.token}`);
    expect(released.status).toBe(204);
    const late = await append(sessionId, { entries: [userEntry('u1', 'u0')], leaseToken: lease.token });
    expect(late.status).toBe(409);
    expect(problemOf(late)).toMatchObject({ reason: 'lease_stale' });
    expect((await append(sessionId, { entries: [userEntry('u1', 'u0')] })).status).toBe(200);
    const types = (await storedEventsOf(engine, sessionId)).map((event) => event.type);
    expect(types.filter((type) => type.startsWith('Lease'))).toEqual([
      'LeaseTaken',
      'LeaseRenewed',
      'LeaseReleased',
    ]);
  });

  it('frees the session when the lease expires, records the expiry, and fences the late holder', async () => {
    const sessionId = await startSession();
    const a = (await take(sessionId, { holder: 'host-a', ttlMs: 1_000 })).body as Lease;

    let b: Lease | undefined;
    await waitUntil(async () => {
      const attempt = await take(sessionId, { holder: 'host-b', ttlMs: 60_000 });
      if (attempt.status === 200) b = attempt.body as Lease;
      return attempt.status === 200;
    }, 'host-b takes the lease once host-a’s expired');

    expect(b).toMatchObject({ holder: 'host-b', sequence: 2 });
    const late = await append(sessionId, { entries: [userEntry('u1', 'u0')], leaseToken: a.token });
    expect(late.status).toBe(409);
    expect(problemOf(late)).toMatchObject({ reason: 'lease_held', holder: 'host-b' });
    const renewal = await take(sessionId, { token: a.token, ttlMs: 60_000 });
    expect(problemOf(renewal)).toMatchObject({ reason: 'lease_held', holder: 'host-b' });
    const expired = await storedEventsOf(engine, sessionId, 'LeaseExpired');
    expect(expired.map((event) => event.data)).toEqual([
      expect.objectContaining({ sequence: 1, holder: 'host-a', expiresAt: Date.parse(a.expiresAt) }),
    ]);
  });

  it("shows the lease in the session's audit of events, with the actor and without the token", async () => {
    const sessionId = await startSession();
    const lease = (await take(sessionId, { holder: 'host-a', ttlMs: 60_000 })).body as Lease;
    const [taken] = await storedEventsOf(engine, sessionId, 'LeaseTaken');
    expect(taken?.metadata).toHaveProperty('actor');
    const events = await engine.request('GET', `/sessions/${sessionId}/events`);
    expect(events.status).toBe(200);
    const listed = (events.body as { events: { type: string; actor: string }[] }).events;
    expect(listed.at(-1)).toMatchObject({ type: 'LeaseTaken', actor: 'anonymous' });
    expect(events.text).not.toContain(lease.token);
  });
});

describe('given two engines on one store', () => {
  let first: HttpHarness;
  let second: HttpHarness;

  beforeAll(async () => {
    first = await startHttpEngine();
    second = await startHttpEngine({ directory: first.directory });
  });

  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('honours a lease taken on one engine on the other, and gives a contested lease to one taker', async () => {
    const sessionId = 'lease-two-engines';
    expect((await first.request('POST', '/sessions', { body: { sessionId, cwd: '/w' } })).status).toBe(201);
    const takes = await Promise.all(
      [first, second, first, second].map((engine, index) =>
        engine.request('POST', `/sessions/${sessionId}/lease`, {
          body: { holder: `host-${index}`, ttlMs: 60_000 },
        }),
      ),
    );
    const granted = takes.filter((response) => response.status === 200);
    expect(granted).toHaveLength(1);
    expect(takes.filter((response) => response.status === 409)).toHaveLength(3);
    const { token } = granted[0]!.body as Lease;

    for (const engine of [first, second]) {
      const without = await engine.request('POST', `/sessions/${sessionId}/entries`, {
        body: { entries: [userEntry(`u-${engine.port}`, null)] },
      });
      expect(problemOf(without)).toMatchObject({ reason: 'lease_held' });
    }
    const on = await second.request('POST', `/sessions/${sessionId}/entries`, {
      body: {
        entries: [userEntry('u1', null), callEntry('a1', 'u1', 'c1'), resultEntry('t1', 'a1', 'c1')],
        leaseToken: token,
      },
    });
    expect(on.status).toBe(200);
  });
});
