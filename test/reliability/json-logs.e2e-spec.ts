// Issue 26, item 3: with STRATA_LOG_FORMAT=json the engine process writes one JSON object per
// line to stdout (its start, the access log, its stop), each line of a request carrying the
// request's id and the caller's trace context; the id is answered in X-Request-Id.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngineProcess, type EngineProcess } from './support/engine-process';

jest.setTimeout(120_000);

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

let directory: string;
let engine: EngineProcess | undefined;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-json-logs-'));
});

afterEach(async () => {
  await engine?.kill('SIGKILL');
  engine = undefined;
  rmSync(directory, { recursive: true, force: true });
});

function records(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('an engine writing JSON logs with the access log on', () => {
  it('writes only JSON lines on stdout: its start, each request with its ids, its stop', async () => {
    const running = await startEngineProcess({
      directory,
      environment: { STRATA_LOG_FORMAT: 'json', STRATA_LOG_LEVEL: 'log', STRATA_ACCESS_LOG: 'on' },
    });
    engine = running;
    const traced = await fetch(`${running.url}/sessions?text=secret`, {
      headers: { 'x-request-id': 'req-42', traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    });
    expect(traced.status).toBe(200);
    expect(traced.headers.get('x-request-id')).toBe('req-42');
    await traced.arrayBuffer();
    const plain = await fetch(`${running.url}/health`, { headers: { 'x-request-id': 'bad id with spaces' } });
    const generatedId = plain.headers.get('x-request-id');
    expect(generatedId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    await plain.arrayBuffer();

    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    engine = undefined;

    const lines = records(running.stdout());
    for (const line of lines) {
      expect(line).toMatchObject({ level: expect.any(String), time: expect.any(String) });
      expect(new Date(line['time'] as string).toISOString()).toBe(line['time']);
    }
    expect(running.stdout().includes(`${String.fromCharCode(27)}[`)).toBe(false); // no colour codes
    const started = lines.find((line) => String(line['message']).startsWith('Strata engine listening on '));
    expect(started).toMatchObject({ level: 'log', context: 'Engine', url: running.url });
    expect(started?.['details']).toEqual(expect.arrayContaining([expect.stringMatching(/^store: +SQLite/)]));
    const access = lines.filter((line) => line['context'] === 'Access');
    expect(access).toContainEqual(
      expect.objectContaining({
        message: expect.objectContaining({
          method: 'GET',
          path: '/sessions',
          status: 200,
          completed: true,
          requestId: 'req-42',
          traceId: TRACE_ID,
          spanId: PARENT_ID,
        }),
      }),
    );
    expect(JSON.stringify(access)).not.toContain('secret');
    expect(access).toContainEqual(
      expect.objectContaining({
        message: expect.objectContaining({ path: '/health', requestId: generatedId }),
      }),
    );
    const engineLines = lines
      .filter((line) => line['context'] === 'Engine')
      .map((line) => String(line['message']));
    expect(engineLines.some((message) => message.startsWith('SIGTERM: draining'))).toBe(true);
    expect(engineLines.some((message) => /^stopped after \d+ ms/.test(message))).toBe(true);
  });
});
