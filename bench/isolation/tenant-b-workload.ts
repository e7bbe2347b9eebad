// Tenant B's workload, the one whose figures the suite compares: a closed loop appending one small
// entry to a session B owns and reading that session's context, and beside it `GET /health`
// every 20 ms. Every request's latency is recorded, and every answer that is not the expected
// one is counted: 5xx apart, other statuses apart, socket errors and timeouts apart.
import { percentile } from '../harness';
import { userTurnEntry } from '../projection/session-streams';
import { jsonBody, type TenantHttp } from './tenant-http';

const HEALTH_INTERVAL_MS = 20;
/** Entries B's session holds before the loop starts, so that its context is not empty. */
const SEED_ENTRIES = 20;

export type RequestKind = 'append' | 'context' | 'health';
export const requestKinds: readonly RequestKind[] = ['append', 'context', 'health'];

export interface KindFigures {
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly serverErrors: number;
  /** Answers that were neither the expected status nor 5xx. */
  readonly otherStatuses: number;
  /** Socket errors and timeouts. */
  readonly errors: number;
  readonly firstProblem: string | null;
}

export type WorkloadFigures = Readonly<Record<RequestKind, KindFigures>>;

class KindRecorder {
  readonly latenciesMs: number[] = [];
  serverErrors = 0;
  otherStatuses = 0;
  errors = 0;
  firstProblem: string | null = null;

  async timed(expected: number, send: () => Promise<{ status: number; body: Buffer }>): Promise<boolean> {
    const started = performance.now();
    try {
      const answer = await send();
      this.latenciesMs.push(performance.now() - started);
      if (answer.status === expected) return true;
      if (answer.status >= 500) this.serverErrors += 1;
      else this.otherStatuses += 1;
      this.firstProblem ??= `status ${answer.status}: ${answer.body.toString('utf8').slice(0, 200)}`;
    } catch (error) {
      this.latenciesMs.push(performance.now() - started);
      this.errors += 1;
      this.firstProblem ??= error instanceof Error ? error.message : String(error);
    }
    return false;
  }

  figures(): KindFigures {
    const ascending = [...this.latenciesMs].sort((left, right) => left - right);
    const round = (value: number): number => Math.round(value * 100) / 100;
    return {
      requests: ascending.length,
      p50Ms: round(percentile(ascending, 0.5)),
      p99Ms: round(percentile(ascending, 0.99)),
      maxMs: round(ascending[ascending.length - 1] ?? Number.NaN),
      serverErrors: this.serverErrors,
      otherStatuses: this.otherStatuses,
      errors: this.errors,
      firstProblem: this.firstProblem,
    };
  }
}

export interface RunningWorkload {
  /** Stops the loops after their current request and returns what they measured. */
  stop(): Promise<WorkloadFigures>;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Starts B's session `sessionId` with a few entries (unmeasured); the id of its last entry. */
export async function seedSession(client: TenantHttp, sessionId: string): Promise<string> {
  await client.expect(201, 'POST', '/sessions', jsonBody({ sessionId, cwd: '/work/tenant-b' }));
  const now = Date.now();
  const entries = Array.from({ length: SEED_ENTRIES }, (_unused, index) => ({
    ...userTurnEntry(`${sessionId}-seed-${index}`, `${sessionId}-seed-${index - 1}`, now + index),
    parentId: index === 0 ? null : `${sessionId}-seed-${index - 1}`,
  }));
  await client.expect(200, 'POST', `/sessions/${sessionId}/entries`, jsonBody({ entries }));
  return `${sessionId}-seed-${SEED_ENTRIES - 1}`;
}

/** Runs B's loops on its seeded session until `stop` is called. */
export function startWorkload(client: TenantHttp, sessionId: string, leafId: string): RunningWorkload {
  const recorders: Record<RequestKind, KindRecorder> = {
    append: new KindRecorder(),
    context: new KindRecorder(),
    health: new KindRecorder(),
  };
  let running = true;
  let leaf = leafId;
  let appended = 0;
  const entriesPath = `/sessions/${sessionId}/entries`;
  const contextPath = `/sessions/${sessionId}/context`;
  const sessionLoop = (async () => {
    while (running) {
      appended += 1;
      const id = `${sessionId}-${appended}`;
      const entry = userTurnEntry(id, leaf, Date.now());
      const stored = await recorders.append.timed(200, () =>
        client.request('POST', entriesPath, jsonBody({ entries: [entry] })),
      );
      if (stored) leaf = id;
      await recorders.context.timed(200, () => client.request('GET', contextPath));
    }
  })();
  const healthLoop = (async () => {
    while (running) {
      await recorders.health.timed(200, () => client.request('GET', '/health'));
      await sleep(HEALTH_INTERVAL_MS);
    }
  })();
  return {
    async stop() {
      running = false;
      await Promise.all([sessionLoop, healthLoop]);
      return {
        append: recorders.append.figures(),
        context: recorders.context.figures(),
        health: recorders.health.figures(),
      };
    },
  };
}
