// Liveness while the read models catch up at start-up (issue 22 item 5, docs/decisions/0010):
// an engine process started on a store of tens of thousands of events that its read models have
// never applied answers `GET /health` within 100 ms throughout the catch-up — measured from this
// process over real HTTP, a new connection per probe as a kubelet makes them — and `GET /ready`
// answers 503 `not_ready`, reason `catching_up`, with Retry-After until the read models are live, then 200.
// The sagas' checkpoint is at the head, as an engine that ran on the store leaves it: what catches
// up is the read side alone (a rebuild, lost projection tables), which is what this bounds. On a
// busy machine the scheduler alone delays answers, so each probe of the engine is paired with a
// probe of a control server in another process that works as a catching-up engine does (busy in
// 10 ms slices, the engine's work slice, answering between them), and the bound is 100 ms beyond
// the slowest answer of that control: what the machine's scheduler costs a process that is busy
// like the engine is not counted against the engine; a stall of the engine's own is.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore, type EventToAppend } from '@strata/event-store';
import { sessionStreamName } from '@strata/session';
import { session } from '@strata/testing';
import { SAGA_CHECKPOINT_ID } from '../../apps/engine/src/sagas/saga-processor';
import { httpRequest, startEngineProcess, storeFileOf, type EngineProcess } from './support/engine-process';

jest.setTimeout(240_000);

/** 40 sessions of 800 entries: about 32,000 events, seconds of catch-up on a quiet 2-core machine. */
const SESSIONS = 40;
const EDIT_TURNS_PER_SESSION = 200;
const EVENTS_PER_APPEND = 1_000;
/** The bound for a liveness answer during catch-up (beyond what the machine itself takes). */
const HEALTH_BOUND_MS = 100;
const HEALTH_INTERVAL_MS = 10;
const READY_INTERVAL_MS = 25;
/** Sized from the work: the catch-up takes seconds; a loaded machine may take several times more. */
const CATCH_UP_DEADLINE_MS = 180_000;

/** Writes the sessions' events straight to the store (no engine) and puts the sagas at the head. */
async function buildStore(file: string): Promise<number> {
  const store = new SqliteEventStore({ filename: file });
  try {
    let events = 0;
    let head = 0n;
    for (let index = 0; index < SESSIONS; index += 1) {
      const builder = session({ sessionId: `catch-up-${index}` }).editTurns(EDIT_TURNS_PER_SESSION);
      const sessionEvents: EventToAppend[] = [
        { id: randomUUID(), type: 'SessionStarted', data: { header: builder.header }, metadata: {} },
        ...builder.entries.map((entry) => ({
          id: randomUUID(),
          type: 'EntryAppended',
          data: { entry },
          metadata: {},
        })),
      ];
      for (let offset = 0; offset < sessionEvents.length; offset += EVENTS_PER_APPEND) {
        const appended = await store.appendToStream(
          sessionStreamName(builder.header.id),
          sessionEvents.slice(offset, offset + EVENTS_PER_APPEND),
        );
        head = appended.position;
      }
      events += sessionEvents.length;
    }
    await store.checkpointStore().store(SAGA_CHECKPOINT_ID, head);
    return events;
  } finally {
    await store.close();
  }
}

/** The engine's work slice during catch-up (WorkSlice, docs/decisions/0010). */
const CONTROL_SLICE_MS = 10;

/**
 * A control HTTP server in a process of its own, kept as busy as a catching-up engine: CPU work
 * in CONTROL_SLICE_MS slices with the event loop turning between them. How long it takes to
 * answer is what the machine costs a process busy like that.
 */
async function startControlServer(): Promise<{ child: ChildProcess; url: string }> {
  const script =
    "const server = require('node:http').createServer((request, response) => response.end('ok'));" +
    `const work = () => { const until = performance.now() + ${CONTROL_SLICE_MS}; while (performance.now() < until); setImmediate(work); };` +
    "server.listen(0, '127.0.0.1', () => { process.stdout.write(server.address().port + '\\n'); work(); });";
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolvePort, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolvePort(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the control server ended (${code})`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

async function timed(url: string): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const answer = await httpRequest('GET', url);
  return { status: answer.status, text: answer.text, ms: performance.now() - started };
}

interface ReadyAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly retryAfter: string | undefined;
  readonly body: Record<string, unknown>;
}

function timeUntil(deadline: number): boolean {
  return Date.now() < deadline;
}

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('an engine started on a store whose read models must catch up with tens of thousands of events', () => {
  let directory: string;
  let engine: EngineProcess | undefined;
  let control: { child: ChildProcess; url: string } | undefined;
  let events: number;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'strata-liveness-'));
    events = await buildStore(storeFileOf(directory));
    control = await startControlServer();
  });

  afterAll(async () => {
    await engine?.kill('SIGTERM');
    control?.child.kill('SIGTERM');
    rmSync(directory, { recursive: true, force: true });
  });

  it('answers /health within 100 ms throughout, and /ready 503 catching_up until the read models are live', async () => {
    engine = await startEngineProcess({ directory, environment: { STRATA_ANCHORS: 'off' } });
    const url = engine.url;
    const controlUrl = control?.url ?? '';
    const healthLatencies: number[] = [];
    const controlLatencies: number[] = [];
    const healthFailures: string[] = [];
    const readyAnswers: ReadyAnswer[] = [];
    let live = false;
    const deadline = Date.now() + CATCH_UP_DEADLINE_MS;

    const probeHealth = async (): Promise<void> => {
      while (!live && timeUntil(deadline)) {
        const answer = await timed(`${url}/health`);
        healthLatencies.push(answer.ms);
        if (answer.status !== 200) healthFailures.push(`${answer.status} ${answer.text}`);
        controlLatencies.push((await timed(controlUrl)).ms);
        await pause(HEALTH_INTERVAL_MS);
      }
    };
    const probeReady = async (): Promise<void> => {
      while (!live && timeUntil(deadline)) {
        const answer = await httpRequest('GET', `${url}/ready`);
        readyAnswers.push({
          status: answer.status,
          contentType: answer.headers['content-type'],
          retryAfter: answer.headers['retry-after'],
          body: JSON.parse(answer.text) as Record<string, unknown>,
        });
        if (answer.status === 200) live = true;
        else await pause(READY_INTERVAL_MS);
      }
    };
    await Promise.all([probeHealth(), probeReady()]);

    const catchingUp = readyAnswers.filter((answer) => answer.status === 503);
    const maxHealthMs = Math.max(...healthLatencies);
    const maxControlMs = Math.max(...controlLatencies);
    process.stdout.write(
      `liveness during catch-up of ${events} events: ${catchingUp.length} answers 503 from /ready, ` +
        `${healthLatencies.length} /health answers, the slowest in ${maxHealthMs.toFixed(1)} ms ` +
        `(the control server's slowest: ${maxControlMs.toFixed(1)} ms)\n`,
    );

    expect(live).toBe(true);
    // The catch-up was really seen: not a test that passes because the engine was already live.
    expect(catchingUp.length).toBeGreaterThan(0);
    for (const answer of catchingUp) {
      expect(answer.contentType).toMatch(/^application\/json/);
      expect(answer.retryAfter).toBe('1');
      expect(answer.body).toMatchObject({
        status: 'not_ready',
        reason: 'catching_up',
        checks: { store: { ok: true }, projections: { ok: false, state: 'catching_up' } },
      });
    }
    const last = readyAnswers[readyAnswers.length - 1];
    expect(last?.status).toBe(200);
    expect(last?.body).toMatchObject({
      status: 'ready',
      checks: { projections: { ok: true, state: 'live', positionsBehind: '0' } },
    });

    expect(healthFailures).toEqual([]);
    // Probes ran during the catch-up, not only after it.
    expect(healthLatencies.length).toBeGreaterThanOrEqual(3);
    expect(maxHealthMs).toBeLessThanOrEqual(HEALTH_BOUND_MS + maxControlMs);
  });
});
