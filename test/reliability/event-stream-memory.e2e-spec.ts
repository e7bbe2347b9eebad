// Many event streams over a log of large entries (issue 11, finding 5): the engine runs as its own
// process with a small heap, tenant A holds entries of several MB, and A's read-only key opens
// more `GET /events?from=start` streams than its share, whose clients then read nothing. The
// engine must stay up, answer A's streams beyond its share with 503 `unavailable`, and serve
// tenant B's streams (B's own events only) all the while.
import * as http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { session } from '@strata/testing';
import { CaseCounts } from './support/case-counts';
import { startEngineProcess, type EngineProcess } from './support/engine-process';

jest.setTimeout(240_000);

const ALPHA_KEY = 'alpha-writer-0123456789abcdef';
const ALPHA_READER_KEY = 'alpha-reader-0123456789abcdef';
const BETA_KEY = 'beta-writer-0123456789abcdef0';
const MAX_STREAMS = 32;
/** An equal share for each of the two tenants. */
const SHARE = MAX_STREAMS / 2;
/** A's streams whose clients read them; the others of its share read nothing. */
const ALPHA_READERS = 2;
const ALPHA_STREAMS = SHARE + 8;
const BETA_STREAMS = 4;
const HEARTBEAT_MS = 1_000;
const LARGE_ENTRIES = 8;
const LARGE_ENTRY_CHARS = 3_000_000;
const HEAP_MB = 192;

const counts = new CaseCounts('event streams over large entries');
let directory: string;
let engine: EngineProcess | undefined;

interface Answer {
  readonly status: number;
  readonly text: string;
}

function send(method: string, path: string, key: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const request = http.request(`${engine!.url}${path}`, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/** An event stream: its client reads it, or reads nothing once it has the status. */
interface HeldStream {
  readonly status: number;
  readonly contentType: string;
  /** What the client read so far. */
  text(): string;
  /** Everything the client read, once the response ended. */
  readonly body: Promise<string>;
  close(): void;
}

function openStream(key: string, read: boolean): Promise<HeldStream> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${engine!.url}/events?from=start`,
      { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' }, agent: false },
      (response) => {
        let text = '';
        const body = new Promise<string>((resolveBody) => {
          response.on('end', () => resolveBody(text));
          response.on('close', () => resolveBody(text));
          response.on('error', () => resolveBody(text));
        });
        const status = response.statusCode ?? 0;
        if (read || status !== 200) {
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
        } else {
          response.pause();
        }
        resolve({
          status,
          contentType: String(response.headers['content-type'] ?? ''),
          text: () => text,
          body,
          close: () => request.destroy(),
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** Waits until `text()` holds `marker`, failing after `timeoutMs` or when the engine ends. */
async function until(text: () => string | Promise<string>, marker: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (engine?.child.exitCode !== null || engine.child.signalCode !== null) {
      throw new Error(`the engine ended; its stderr:\n${engine?.stderr() ?? ''}`);
    }
    const seen = await text();
    if (seen.includes(marker)) return;
    if (Date.now() > deadline)
      throw new Error(`no '${marker}' within ${timeoutMs} ms; got ${seen.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 'NaN');
  return Math.round(kilobytes / 1024);
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'strata-streams-'));
  engine = await startEngineProcess({
    directory,
    settings: { models: { defaultContextWindow: 100_000_000 } },
    environment: {
      NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}`,
      STRATA_API_KEYS: `alpha:${ALPHA_KEY},alpha:${ALPHA_READER_KEY}:read,beta:${BETA_KEY}`,
      STRATA_MAX_EVENT_STREAMS: String(MAX_STREAMS),
      STRATA_SSE_HEARTBEAT_MS: String(HEARTBEAT_MS),
    },
  });
  const large = session({ sessionId: 'alpha-large' });
  expect((await send('POST', '/sessions', ALPHA_KEY, { sessionId: 'alpha-large', cwd: '/a' })).status).toBe(
    201,
  );
  for (let index = 0; index < LARGE_ENTRIES; index += 1) {
    const entry = large.user(`${index} `.padEnd(LARGE_ENTRY_CHARS, 'abcdefghij')).entries.at(-1)!;
    const appended = await send('POST', '/sessions/alpha-large/entries', ALPHA_KEY, { entries: [entry] });
    expect(appended.status).toBe(200);
  }
  const small = session({ sessionId: 'beta-small' }).user('Hello').assistant('Hi.');
  expect((await send('POST', '/sessions', BETA_KEY, { sessionId: 'beta-small', cwd: '/b' })).status).toBe(
    201,
  );
  const appended = await send('POST', '/sessions/beta-small/entries', BETA_KEY, { entries: small.entries });
  expect(appended.status).toBe(200);
});

afterAll(async () => {
  counts.report();
  await engine?.kill('SIGKILL');
  rmSync(directory, { recursive: true, force: true });
});

describe("given tenant A's entries of 3 MB and A's read-only key opening more streams than its share", () => {
  it("stays up, refuses A's streams beyond its share with 503, serves B's streams, and ends A's stalled ones", async () => {
    const alpha: HeldStream[] = [];
    const beta: HeldStream[] = [];
    const seededPeak = peakRssMb(engine!.child.pid!);
    try {
      for (let index = 0; index < ALPHA_STREAMS; index += 1) {
        const reads = index < ALPHA_READERS;
        alpha.push(await openStream(ALPHA_READER_KEY, reads));
        counts.record('streams opened', [
          reads ? 'tenant A, client reads' : 'tenant A, client reads nothing',
        ]);
      }
      for (let index = 0; index < BETA_STREAMS; index += 1) {
        beta.push(await openStream(BETA_KEY, true));
        counts.record('streams opened', ['tenant B, client reads']);
      }
      // B's streams are served while A's hold their share: each sees B's three events, only.
      expect(beta.map((stream) => stream.status)).toEqual(Array(BETA_STREAMS).fill(200));
      for (const stream of beta) await until(stream.text, ': caught up', 60_000);
      for (const stream of beta) {
        const names = [...stream.text().matchAll(/^event: (\S+)$/gm)].map((match) => match[1]);
        expect(names).toEqual(['session_start', 'entry_appended', 'entry_appended']);
        expect(stream.text()).not.toContain('alpha-large');
        counts.record('streams served', ['tenant B']);
      }
      expect(alpha.filter((stream) => stream.status === 200)).toHaveLength(SHARE);
      const refused = alpha.filter((stream) => stream.status !== 200);
      expect(refused.map((stream) => stream.status)).toEqual(Array(ALPHA_STREAMS - SHARE).fill(503));
      for (const stream of refused) {
        expect(stream.contentType).toMatch(/^application\/problem\+json/);
        const problem = JSON.parse(await stream.body) as { code: string; detail: string };
        expect(problem.code).toBe('unavailable');
        expect(problem.detail).toMatch(/share of 16 event streams/);
      }

      // A's own streams go on: the engine ends those whose clients take nothing (after four
      // heartbeats), and A's readers get every large entry.
      await until(
        async () => (await send('GET', '/metrics', BETA_KEY)).text,
        `strata_event_streams_open ${ALPHA_READERS + BETA_STREAMS}\n`,
        120_000,
      );
      expect(engine!.stdout()).toContain('its client took nothing for 4 heartbeats');
      for (const stream of alpha.slice(0, ALPHA_READERS)) {
        await until(stream.text, ': caught up', 120_000);
        const names = [...stream.text().matchAll(/^event: (\S+)$/gm)].map((match) => match[1]);
        expect(names).toEqual(['session_start', ...Array(LARGE_ENTRIES).fill('entry_appended')]);
        expect(stream.text()).not.toContain('beta-small');
        counts.record('streams served', ['tenant A, every large entry']);
      }
      const health = await send('GET', '/health', BETA_KEY);
      expect(health.status).toBe(200);
      expect(engine!.child.exitCode).toBeNull();
      process.stdout.write(
        `[reliability] event streams over large entries: engine peak RSS ${seededPeak} MB after seeding, ` +
          `${peakRssMb(engine!.child.pid!)} MB after the streams (heap limit ${HEAP_MB} MB)\n`,
      );
    } finally {
      for (const stream of [...alpha, ...beta]) stream.close();
    }
  });
});
