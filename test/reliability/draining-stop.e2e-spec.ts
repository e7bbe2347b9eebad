// Issue 26, item 4: the engine process stopped as Kubernetes stops it. SIGTERM while a compaction
// waits for a slow model: /ready answers 503 draining, a request arriving then is answered 503
// with Retry-After, the compaction in progress gets its answer, and the process exits 0. A model
// that never answers does not keep the process alive past STRATA_SHUTDOWN_TIMEOUT_MS and its
// grace. A port already taken ends the start at once with one line and exit 1.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { session, waitUntil } from '@strata/testing';
import { httpRequest, startEngineProcess, type EngineProcess } from './support/engine-process';
import { SummaryEndpoint } from './support/summary-endpoint';

jest.setTimeout(180_000);

let directory: string;
let endpoint: SummaryEndpoint;
let engine: EngineProcess | undefined;

function start(environment: Readonly<Record<string, string>> = {}): Promise<EngineProcess> {
  return startEngineProcess({
    directory,
    environment,
    settings: {
      compaction: { keepRecentTokens: 250, reserveTokens: 2000 },
      models: { defaultContextWindow: 10_000 },
      summarizer: {
        candidates: [{ provider: 'remote' as const, url: endpoint.url, timeoutMs: 600_000 }],
        retry: { maxRetries: 0 },
      },
    },
  });
}

async function seed(running: EngineProcess, sessionId: string): Promise<void> {
  expect((await running.request('POST', '/sessions', { sessionId, cwd: '/w' })).status).toBe(201);
  const appended = await running.request('POST', `/sessions/${sessionId}/entries`, {
    entries: session({ sessionId }).editTurns(6).entries,
  });
  expect(appended.status).toBe(200);
}

function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  return waitUntil(condition, what, { timeoutMs });
}

beforeEach(async () => {
  directory = mkdtempSync(join(tmpdir(), 'strata-drain-'));
  endpoint = await SummaryEndpoint.start();
});

afterEach(async () => {
  await engine?.kill('SIGKILL');
  engine = undefined;
  await endpoint.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('an engine sent SIGTERM while a compaction waits for a slow model', () => {
  it('drains: /ready 503 draining, a late request 503 with Retry-After, the compaction answered, exit 0', async () => {
    const running = await start();
    engine = running;
    await seed(running, 'slow');
    let release: () => void = () => undefined;
    endpoint.behave({
      kind: 'summary',
      summary: '## Goal\n- finish',
      until: new Promise<void>((resolveRelease) => {
        release = resolveRelease;
      }),
    });
    const compaction = running.request('POST', '/sessions/slow/compact', {});
    await endpoint.received(1);

    running.child.kill('SIGTERM');
    let ready: { status: number; body: unknown } | undefined;
    await waitFor(async () => {
      ready = await running.request('GET', '/ready');
      return ready.status === 503;
    }, '/ready answers 503');
    expect(ready?.body).toMatchObject({ status: 'not_ready', reason: 'draining' });

    const late = await httpRequest('GET', `${running.url}/sessions`);
    expect(late.status).toBe(503);
    expect(late.headers['retry-after']).toBe('5');
    expect(JSON.parse(late.text)).toMatchObject({ status: 503, code: 'unavailable' });
    expect((await running.request('GET', '/health')).status).toBe(200);
    expect(running.child.exitCode).toBeNull();

    release();
    const answered = await compaction;
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ outcome: 'completed' });
    expect(await running.exited).toBe(0);
    engine = undefined;
    expect(running.stderr()).toMatch(/SIGTERM: draining/);
    expect(running.stderr()).toMatch(/stopped after \d+ ms/);
  });

  it('does not wait for a model that never answers past STRATA_SHUTDOWN_TIMEOUT_MS, and exits 0', async () => {
    const running = await start({ STRATA_SHUTDOWN_TIMEOUT_MS: '1000' });
    engine = running;
    await seed(running, 'hung');
    endpoint.behave({ kind: 'hang' });
    const compaction = running.request('POST', '/sessions/hung/compact', {}).catch((error: Error) => error);
    await endpoint.received(1);

    running.child.kill('SIGTERM');
    // without the deadline the process waits as long as the model (the summariser's timeout is
    // ten minutes here): that it ends at all, with 0, is what is checked
    expect(await running.exited).toBe(0);
    engine = undefined;
    expect(running.stderr()).toMatch(/closing with 1 request\(s\) still in progress/);
    await compaction;

    endpoint.behave({ kind: 'summary', summary: '## Goal\n- again' });
    const again = await start();
    engine = again;
    await waitFor(async () => {
      const attempts = await again.request('GET', '/sessions/hung/attempts');
      const items = (attempts.body as { items: { outcome: string }[] }).items;
      return items.length > 0 && items.every((attempt) => attempt.outcome !== 'pending');
    }, 'the restart ended the attempt left open');
  });
});

describe('an engine whose port is taken', () => {
  let taken: Server;

  beforeEach(async () => {
    taken = createServer();
    await new Promise<void>((resolveListen) => taken.listen(0, '127.0.0.1', resolveListen));
  });

  afterEach(() => new Promise<void>((resolveClose) => taken.close(() => resolveClose())));

  it('exits 1 at once with one line naming the address', async () => {
    const port = String((taken.address() as AddressInfo).port);
    const settingsFile = join(directory, 'settings.json');
    writeFileSync(settingsFile, JSON.stringify({ tokenizer: 'chars4' }));
    const child = spawn(process.execPath, [resolve(__dirname, '..', '..', 'bin', 'engine.js')], {
      cwd: directory,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: port,
        STRATA_HOST: '127.0.0.1',
        STRATA_STORE: `sqlite:${join(directory, 'strata.db')}`,
        STRATA_SETTINGS: settingsFile,
        STRATA_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toEqual([
      `Strata engine: cannot listen on 127.0.0.1, port ${port}: another program already listens there (set PORT, or STRATA_HOST)`,
    ]);
  });
});
