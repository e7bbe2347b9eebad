// End to end over real HTTP (DESIGN.md decision 11, issue 22 item 3, docs/decisions/0009): write
// requests are admitted fairly between tenants before their bodies are read. A tenant over its
// share is refused with 429 and Retry-After while its body is still unsent, another tenant writes
// at the same moment, the engine's whole budget answers 503, a waiting write is admitted when an
// earlier one ends (or refused when its wait runs out, never 408), and the connection of an early
// answer is kept when its body is short or closed cleanly. Held bodies are sent over raw sockets.
import { session } from '@strata/testing';
import { apiOperations } from '../../apps/engine/src/http/api-document';
import {
  ALPHA_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  problemOf,
  startHttpEngine,
  waitUntil,
  type HttpHarness,
} from './http-harness';
import { RawConnection } from './raw-connection';

const KiB = 1024;
const MiB = 1024 * KiB;

let entryNumber = 0;

afterEach(() => RawConnection.destroyAll());

/** An append of one user entry under the session's first entry, padded to exactly `bytes`. */
function appendBody(bytes?: number): string {
  entryNumber += 1;
  const text = JSON.stringify({
    entries: [
      {
        type: 'message',
        id: `admitted-${entryNumber}`,
        parentId: 'e0001',
        timestamp: '2026-01-01T00:01:00.000Z',
        message: { role: 'user', content: `Write ${entryNumber}`, timestamp: 1 },
      },
    ],
  });
  return bytes === undefined ? text : text.padEnd(bytes, ' ');
}

/** A write whose headers are sent with `Content-Length: bytes` and whose body is held back. */
async function heldWrite(engine: HttpHarness, key: string, sessionId: string, bytes: number) {
  const connection = await RawConnection.open(engine.port);
  connection.head('POST', `/sessions/${sessionId}/entries`, {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    'content-length': bytes,
  });
  return {
    connection,
    /** Sends the body (a valid append) and reads the answer. */
    finish: async () => {
      connection.send(appendBody(bytes));
      return connection.answer();
    },
  };
}

/** The value of a metric sample (`name` with its labels as rendered), undefined when absent. */
async function metric(engine: HttpHarness, sample: string): Promise<number | undefined> {
  const text = (await engine.request('GET', '/metrics', { key: ALPHA_KEY })).text;
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return line === undefined ? undefined : Number(line.slice(sample.length + 1));
}

async function untilMetric(engine: HttpHarness, sample: string, value: number): Promise<void> {
  await waitUntil(async () => (await metric(engine, sample)) === value, `${sample} ${value}`);
}

async function seedSessions(engine: HttpHarness): Promise<void> {
  for (const [sessionId, key] of [
    ['alpha-s', ALPHA_KEY],
    ['beta-s', BETA_KEY],
  ] as const) {
    const builder = session({ sessionId }).user('Hello').assistant('Hi.');
    await engine.seed(builder.header, builder.entries, key);
  }
}

const smallAppend = (engine: HttpHarness, key: string, sessionId: string) =>
  engine.request('POST', `/sessions/${sessionId}/entries`, {
    key,
    rawBody: appendBody(),
    contentType: 'application/json',
  });

describe('given two tenants, a budget of 2 MiB and a share of 1.5 MiB each, and no queue', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({
      environment: {
        STRATA_API_KEYS: TWO_TENANT_KEYS,
        STRATA_WRITE_BYTES_IN_FLIGHT: '2mb',
        STRATA_WRITE_BYTES_IN_FLIGHT_PER_TENANT: '1536kb',
        STRATA_WRITE_QUEUE_PER_TENANT: '0',
      },
    });
    await seedSessions(engine);
  });

  afterAll(() => engine.close());

  /** Alpha's write of its whole share, admitted and reading its body, until the test ends it. */
  async function alphaAtItsShare() {
    const held = await heldWrite(engine, ALPHA_KEY, 'alpha-s', 1.5 * MiB);
    await untilMetric(engine, 'strata_write_bytes_in_flight', 1.5 * MiB);
    return async () => {
      expect((await held.finish()).status).toBe(200);
      await untilMetric(engine, 'strata_write_bytes_in_flight', 0);
    };
  }

  it("refuses a write over the tenant's share with 429 and Retry-After before its body is sent, while the other tenant writes", async () => {
    const end = await alphaAtItsShare();
    const over = await RawConnection.open(engine.port);
    over.head('POST', '/sessions/alpha-s/entries', {
      authorization: `Bearer ${ALPHA_KEY}`,
      'content-type': 'application/json',
      'content-length': MiB,
    });
    const answer = await over.answer();
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({
      status: 429,
      code: 'too_many_requests',
      reason: 'write_share_exceeded',
    });
    expect(answer.headers['connection']).toBe('close');
    expect(await over.ended).toBe('closed');

    expect((await smallAppend(engine, BETA_KEY, 'beta-s')).status).toBe(200);
    expect(await metric(engine, 'strata_writes_refused_total{reason="write_share_exceeded"}')).toBe(1);
    await end();
    expect((await smallAppend(engine, ALPHA_KEY, 'alpha-s')).status).toBe(200);
  });

  it("answers 503 when the engine's whole budget is taken, and admits the other tenant's write that fits", async () => {
    const end = await alphaAtItsShare();
    const large = await RawConnection.open(engine.port);
    large.head('POST', '/sessions/beta-s/entries', {
      authorization: `Bearer ${BETA_KEY}`,
      'content-type': 'application/json',
      'content-length': MiB,
    });
    const answer = await large.answer();
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(answer.body).toMatchObject({ code: 'unavailable', reason: 'write_capacity_exhausted' });
    expect(await large.ended).toBe('closed');

    expect((await smallAppend(engine, BETA_KEY, 'beta-s')).status).toBe(200);
    await end();
  });

  it('answers a client that sends its large body anyway (fetch) with the refusal', async () => {
    const end = await alphaAtItsShare();
    const response = await engine.request('POST', '/sessions/alpha-s/entries', {
      key: ALPHA_KEY,
      rawBody: appendBody(MiB),
      contentType: 'application/json',
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('connection')).toBe('close');
    expect(problemOf(response)).toMatchObject({ reason: 'write_share_exceeded' });
    await end();
  });

  it('keeps the connection of an early answer whose body is short: the next request on it is answered', async () => {
    const end = await alphaAtItsShare();
    const connection = await RawConnection.open(engine.port);
    const body = appendBody();
    connection.head('POST', '/sessions/alpha-s/entries', {
      authorization: `Bearer ${ALPHA_KEY}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    connection.send(body);
    const refused = await connection.answer();
    expect(refused.status).toBe(429);
    expect(refused.headers['connection']).not.toBe('close');
    connection.head('GET', '/sessions/alpha-s', { authorization: `Bearer ${ALPHA_KEY}` });
    const next = await connection.answer();
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ sessionId: 'alpha-s' });
    connection.destroy();
    await end();
  });

  it('admits every write operation of the OpenAPI document: each is refused while the tenant is at its share', async () => {
    const writes = apiOperations.filter(
      (operation) => operation.method !== 'get' && operation.public !== true,
    );
    expect(writes.length).toBeGreaterThanOrEqual(8);
    const end = await alphaAtItsShare();
    for (const operation of writes) {
      const path = operation.path.replace('{sessionId}', 'alpha-s');
      const response = await engine.request(operation.method.toUpperCase(), path, {
        key: ALPHA_KEY,
        rawBody: '{"reason": "admission"}',
        contentType: operation.body?.mediaTypes?.[0] ?? 'application/json',
      });
      expect([operation.operationId, response.status, problemOf(response).reason]).toEqual([
        operation.operationId,
        429,
        'write_share_exceeded',
      ]);
    }
    await end();
  });

  it("gives a write's place back when its client goes away while its body is read", async () => {
    const held = await heldWrite(engine, ALPHA_KEY, 'alpha-s', 1.5 * MiB);
    await untilMetric(engine, 'strata_write_bytes_in_flight', 1.5 * MiB);
    held.connection.destroy();
    await untilMetric(engine, 'strata_write_bytes_in_flight', 0);
    expect((await smallAppend(engine, ALPHA_KEY, 'alpha-s')).status).toBe(200);
  });
});

describe('given two tenants, one write at a time for each, and a queue of one', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({
      environment: {
        STRATA_API_KEYS: TWO_TENANT_KEYS,
        STRATA_WRITE_TENANT_CONCURRENCY: '1',
        STRATA_WRITE_QUEUE_PER_TENANT: '1',
        STRATA_WRITE_QUEUE_WAIT_MS: '120000',
      },
    });
    await seedSessions(engine);
  });

  afterAll(() => engine.close());

  it('admits a waiting write when the write before it ends, and refuses one past the queue at once', async () => {
    const first = await heldWrite(engine, ALPHA_KEY, 'alpha-s', 4 * KiB);
    await untilMetric(engine, 'strata_writes_in_flight', 1);
    const waiting = smallAppend(engine, ALPHA_KEY, 'alpha-s');
    await untilMetric(engine, 'strata_writes_queued', 1);

    const past = await smallAppend(engine, ALPHA_KEY, 'alpha-s');
    expect(past.status).toBe(429);
    expect(problemOf(past)).toMatchObject({ reason: 'write_share_exceeded' });
    expect(past.headers.get('retry-after')).toBe('120');
    expect((await smallAppend(engine, BETA_KEY, 'beta-s')).status).toBe(200);

    expect((await first.finish()).status).toBe(200);
    expect((await waiting).status).toBe(200);
    expect(await metric(engine, 'strata_writes_admitted_total{waited="true"}')).toBe(1);
    expect(await metric(engine, 'strata_writes_queued')).toBe(0);
  });

  it('takes a waiting write out of the queue when its client goes away', async () => {
    const first = await heldWrite(engine, ALPHA_KEY, 'alpha-s', 4 * KiB);
    await untilMetric(engine, 'strata_writes_in_flight', 1);
    const waiting = await heldWrite(engine, ALPHA_KEY, 'alpha-s', 4 * KiB);
    await untilMetric(engine, 'strata_writes_queued', 1);
    waiting.connection.destroy();
    await untilMetric(engine, 'strata_writes_queued', 0);
    expect(await metric(engine, 'strata_writes_withdrawn_total')).toBe(1);
    expect((await first.finish()).status).toBe(200);
  });
});

describe('given a tenant that may wait 300 ms for its one write at a time', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({
      environment: {
        STRATA_API_KEYS: TWO_TENANT_KEYS,
        STRATA_WRITE_TENANT_CONCURRENCY: '1',
        STRATA_WRITE_QUEUE_WAIT_MS: '300',
      },
    });
    await seedSessions(engine);
  });

  afterAll(() => engine.close());

  it('refuses a write that could not be admitted within the wait with 429, its body unread, never 408', async () => {
    const first = await heldWrite(engine, ALPHA_KEY, 'alpha-s', 4 * KiB);
    await untilMetric(engine, 'strata_writes_in_flight', 1);
    const second = await heldWrite(engine, ALPHA_KEY, 'alpha-s', MiB);
    const answer = await second.connection.answer();
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.body).toMatchObject({ code: 'too_many_requests', reason: 'write_share_exceeded' });
    expect(await second.connection.ended).toBe('closed');
    expect((await first.finish()).status).toBe(200);
  });
});
