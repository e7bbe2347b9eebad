// Retention in a running engine (issue 14, item 5): with `retention: {tenant: days}` in its
// settings, the engine's pass erases the sessions of that tenant idle for longer, through the
// audited erasure (actor strata-retention, the rule as the reason), and leaves the rest alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { importSessionFile } from '@strata/session-files';
import { serializeSessionFile } from '@strata/session';
import { session } from '@strata/testing';
import { RetentionService } from '../../apps/engine/src/sessions/erase-session/retention.service';
import {
  ALPHA_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  problemOf,
  startHttpEngine,
  waitUntil,
  type HttpHarness,
} from './http-harness';

const DAY_MS = 86_400_000;

describe('given an engine with retention rules and sessions written long ago', () => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-retention-'));
  let engine: HttpHarness;

  beforeAll(async () => {
    const seeded = [
      { id: 'alpha-stale', tenant: 'alpha', daysAgo: 45 },
      { id: 'alpha-recent', tenant: 'alpha', daysAgo: 10 },
      { id: 'beta-ancient', tenant: 'beta', daysAgo: 400 },
    ];
    for (const { id, tenant, daysAgo } of seeded) {
      const written = new Date(Date.now() - daysAgo * DAY_MS);
      const store = new SqliteEventStore({ filename: join(directory, 'strata.db') });
      const built = session({ sessionId: id }).user('hello').assistant('hi');
      try {
        // the seal's clock, whose time the store records
        await importSessionFile(store, serializeSessionFile(built.header, built.entries), {
          tenant,
          now: () => written,
        });
      } finally {
        await store.close();
      }
    }
    engine = await startHttpEngine({
      directory,
      environment: { STRATA_API_KEYS: TWO_TENANT_KEYS, STRATA_RETENTION_INTERVAL_MS: '1000' },
      settings: { retention: { alpha: 30 } },
    });
  }, 60_000);

  afterAll(async () => {
    await engine?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('erases the tenant’s idle sessions with an audited record, and nothing else', async () => {
    await waitUntil(
      async () => (await engine.request('GET', '/sessions/alpha-stale', { key: ALPHA_KEY })).status === 410,
      'the stale session erased',
      15_000,
    );
    const gone = await engine.request('GET', '/sessions/alpha-stale', { key: ALPHA_KEY });
    expect(problemOf(gone)).toMatchObject({
      status: 410,
      reason: 'session_erased',
      erasure: { actor: 'strata-retention', tenant: 'alpha' },
    });
    const erasures = await engine.request('GET', '/erasures', { key: ALPHA_KEY });
    expect(erasures.body).toMatchObject({
      total: 1,
      items: [{ sessionId: 'alpha-stale', actor: 'strata-retention', eventCount: 3 }],
    });
    const { items } = erasures.body as { items: { reason: string }[] };
    expect(items[0]!.reason).toContain('retention.alpha = 30');
    // a later pass changes nothing more: the recent session and the tenant without a rule stay.
    // The first call may join a pass already under way; the second is a whole pass begun after it.
    const retention = engine.app.get(RetentionService);
    await retention.runPass();
    await retention.runPass();
    expect((await engine.request('GET', '/sessions/alpha-recent', { key: ALPHA_KEY })).status).toBe(200);
    expect((await engine.request('GET', '/sessions/beta-ancient', { key: BETA_KEY })).status).toBe(200);
    expect(
      ((await engine.request('GET', '/erasures', { key: ALPHA_KEY })).body as { total: number }).total,
    ).toBe(1);
  });
});
