// Suite `http` (issue 6): the engine's HTTP API under load on loopback. The whole engine listens
// on a temporary SQLite store; N concurrent clients (global fetch, closed loop) send GET context
// of a 1,000-entry session, GET one session, and POST one entry to their own session, each
// bounded in requests and in time. The baseline is GET /health of the same app: the floor of
// the framework, the HTTP stack and fetch on this machine.
import * as path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { SessionEntry } from '@strata/session';
import { loadEngineConfig } from '../../apps/engine/src/config/engine-config';
import { createEngineApplication } from '../../apps/engine/src/engine-application';
import {
  formatRate,
  summariseDurations,
  type BenchSuite,
  type CaseResult,
  type CaseRole,
  type FigureGroup,
  type SummaryTable,
  memorySnapshot,
} from '../harness';
import { generateSession } from '../context/generate-session';
import { userTurnEntry } from '../projection/session-streams';
import { latencyPercentiles, runLoad, type LoadBounds, type LoadRequest, type LoadRun } from './load-client';

const READ_SESSION_ENTRIES = 1_000;
const SEED_CHUNK = 250;

interface Scenario {
  readonly name: string;
  readonly role: CaseRole;
  readonly label: string;
  readonly expectedStatus: number;
  readonly request: LoadRequest;
}

interface HttpPlan {
  readonly clients: number;
  readonly rounds: number;
  readonly bounds: LoadBounds;
}

const fullPlan: HttpPlan = {
  clients: 16,
  rounds: 3,
  bounds: { clients: 16, maxRequests: 3_000, maxSeconds: 3.5 },
};
const quickPlan: HttpPlan = {
  clients: 8,
  rounds: 1,
  bounds: { clients: 8, maxRequests: 500, maxSeconds: 2 },
};

async function send(url: string, method: string, body?: unknown): Promise<number> {
  const response = await fetch(url, {
    method,
    ...(body !== undefined
      ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
      : {}),
  });
  await response.arrayBuffer();
  return response.status;
}

async function startSession(baseUrl: string, sessionId: string): Promise<void> {
  const status = await send(`${baseUrl}/sessions`, 'POST', { sessionId, cwd: '/work/bench' });
  if (status !== 201) throw new Error(`starting ${sessionId} answered ${status}`);
}

async function appendAll(
  baseUrl: string,
  sessionId: string,
  entries: readonly SessionEntry[],
): Promise<void> {
  for (let offset = 0; offset < entries.length; offset += SEED_CHUNK) {
    const status = await send(`${baseUrl}/sessions/${sessionId}/entries`, 'POST', {
      entries: entries.slice(offset, offset + SEED_CHUNK),
    });
    if (status !== 200) throw new Error(`seeding ${sessionId} answered ${status}`);
  }
}

function scenarios(baseUrl: string, readSessionId: string, clients: number): Scenario[] {
  const leaves = Array.from({ length: clients }, (): string | null => null);
  const appendSessionId = (client: number): string => `http-append-${client}`;
  let appended = 0;
  return [
    {
      name: 'http/health',
      role: 'baseline',
      label: 'GET /health (framework floor)',
      expectedStatus: 200,
      request: () => send(`${baseUrl}/health`, 'GET'),
    },
    {
      name: 'http/context',
      role: 'subject',
      label: `GET /sessions/:id/context (${READ_SESSION_ENTRIES.toLocaleString('en-US')} entries)`,
      expectedStatus: 200,
      request: () => send(`${baseUrl}/sessions/${readSessionId}/context`, 'GET'),
    },
    {
      name: 'http/session',
      role: 'subject',
      label: 'GET /sessions/:id (catalog)',
      expectedStatus: 200,
      request: () => send(`${baseUrl}/sessions/${readSessionId}`, 'GET'),
    },
    {
      name: 'http/append',
      role: 'subject',
      label: 'POST /sessions/:id/entries (1 entry, own session per client)',
      expectedStatus: 200,
      request: async (client) => {
        appended += 1;
        const parentId = leaves[client] ?? null;
        const id = `h${client}-${appended}`;
        const entry = { ...userTurnEntry(id, parentId ?? '', Date.UTC(2026, 11, 2) + appended), parentId };
        const status = await send(`${baseUrl}/sessions/${appendSessionId(client)}/entries`, 'POST', {
          entries: [entry],
        });
        if (status === 200) leaves[client] = id;
        return status;
      },
    },
  ];
}

function caseResult(scenario: Scenario, runs: readonly LoadRun[], plan: HttpPlan): CaseResult {
  const latencies = runs.flatMap((run) => run.latenciesNs);
  const timing = summariseDurations(latencies);
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const wallSeconds = runs.reduce((sum, run) => sum + Number(run.wallNs), 0) / 1e9;
  const rates = runs.map((run) => run.requests / (Number(run.wallNs) / 1e9));
  const percentiles = latencyPercentiles(latencies);
  const failures = runs.reduce((sum, run) => sum + run.failures, 0);
  const firstFailure = runs.find((run) => run.firstFailure !== null)?.firstFailure ?? '';
  const round = (value: number): number => Math.round(value * 10) / 10;
  return {
    name: scenario.name,
    group: `HTTP API on loopback, ${plan.clients} concurrent clients`,
    role: scenario.role,
    label: scenario.label,
    unit: 'request',
    operationsPerIteration: 1,
    warmupIterations: 1,
    ...timing,
    operationsPerSecond: round(requests / wallSeconds),
    operationsPerSecondP90Time: round(Math.min(...rates)),
    operationsPerSecondP10Time: round(Math.max(...rates)),
    memoryAfter: memorySnapshot(),
    details: {
      clients: plan.clients,
      requests,
      rounds: runs.length,
      p50Ms: percentiles.p50,
      p90Ms: percentiles.p90,
      p99Ms: percentiles.p99,
      requestsPerSecond: round(requests / wallSeconds),
      failures,
      firstFailure,
    },
  };
}

function latencyOf(result: CaseResult, percentile: 'p50Ms' | 'p99Ms'): number {
  return Number(result.details[percentile]);
}

/** p50 and p99 per request for the chart, each scenario next to GET /health. */
function latencyFigures(cases: readonly CaseResult[], clients: number): FigureGroup[] {
  return (['p50Ms', 'p99Ms'] as const).map((percentile) => ({
    title: `latency per request, ${percentile.slice(0, 3)} (${clients} concurrent clients)`,
    unit: 'ms',
    lowerIsBetter: true,
    inSummary: false,
    rows: cases.map((result) => {
      const value = latencyOf(result, percentile);
      return { label: result.label, role: result.role, value, display: `${value.toFixed(1)} ms` };
    }),
  }));
}

/** The table issue 6 asks for: p50 and p99 latency per scenario, next to GET /health's. */
function latencyTable(cases: readonly CaseResult[], clients: number): SummaryTable {
  const baseline = cases.find((result) => result.role === 'baseline');
  const times = (result: CaseResult, percentile: 'p50Ms' | 'p99Ms'): string =>
    baseline === undefined || result === baseline
      ? 'baseline'
      : `×${(latencyOf(result, percentile) / latencyOf(baseline, percentile)).toPrecision(3)}`;
  return {
    title: `Latency per request with ${clients} concurrent clients (p50 / p99 over every round)`,
    columns: ['scenario', 'requests', 'p50', 'p90', 'p99', 'requests/s', 'p50 vs /health', 'p99 vs /health'],
    numericColumns: [1, 2, 3, 4, 5, 6, 7],
    rows: cases.map((result) => [
      result.label,
      String(result.details['requests']),
      `${latencyOf(result, 'p50Ms').toFixed(1)} ms`,
      `${Number(result.details['p90Ms']).toFixed(1)} ms`,
      `${latencyOf(result, 'p99Ms').toFixed(1)} ms`,
      formatRate(result.operationsPerSecond),
      times(result, 'p50Ms'),
      times(result, 'p99Ms'),
    ]),
  };
}

export const httpSuite: BenchSuite = {
  name: 'http',
  title: 'HTTP API under load on loopback (engine on SQLite) against GET /health of the same app',
  async run(context) {
    const { progress, scratchDirectory, quick } = context;
    const plan = quick ? quickPlan : fullPlan;
    const config = loadEngineConfig(
      { STRATA_STORE: `sqlite:${path.join(scratchDirectory, 'http.db')}`, STRATA_LOG_LEVEL: 'silent' },
      scratchDirectory,
    );
    const app: INestApplication = await createEngineApplication(config, {
      environment: {},
      settings: { tokenizer: 'chars4' },
    });
    try {
      await app.listen(0, '127.0.0.1');
      const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      progress.step('http', `engine listening at ${baseUrl}; seeding sessions`);
      const readSession = generateSession({ entryCount: READ_SESSION_ENTRIES, seed: 6 });
      const readSessionId = 'http-read';
      await startSession(baseUrl, readSessionId);
      await appendAll(baseUrl, readSessionId, readSession.entries);
      for (let client = 0; client < plan.clients; client += 1)
        await startSession(baseUrl, `http-append-${client}`);
      const contextResponse = await fetch(`${baseUrl}/sessions/${readSessionId}/context`);
      const contextBytes = (await contextResponse.arrayBuffer()).byteLength;
      const all = scenarios(baseUrl, readSessionId, plan.clients);
      const warmup: LoadBounds = { clients: plan.clients, maxRequests: 150, maxSeconds: 1.5 };
      for (const scenario of all) await runLoad(scenario.request, scenario.expectedStatus, warmup);
      const runs = all.map((): LoadRun[] => []);
      for (let round = 0; round < plan.rounds; round += 1) {
        for (const [index, scenario] of all.entries()) {
          const run = await runLoad(scenario.request, scenario.expectedStatus, plan.bounds);
          runs[index]!.push(run);
          const latency = latencyPercentiles(run.latenciesNs);
          progress.step(
            'http',
            `${scenario.name} round ${round + 1}: ${run.requests} requests, ` +
              `${(run.requests / (Number(run.wallNs) / 1e9)).toFixed(0)} req/s, p50 ${latency.p50} ms, p99 ${latency.p99} ms` +
              (run.failures > 0 ? `, ${run.failures} failures (${run.firstFailure ?? ''})` : ''),
          );
        }
      }
      const cases = all.map((scenario, index) => caseResult(scenario, runs[index]!, plan));
      const failed = cases.filter((result) => result.details['failures'] !== 0);
      const notices = failed.map(
        (result) =>
          `${result.name}: ${String(result.details['failures'])} unexpected answers (${String(result.details['firstFailure'])})`,
      );
      notices.push(
        'Client and engine share the same two cores (loopback, one process): every figure includes the cost of fetch itself. ' +
          'Latencies are per request; the throughput column is requests/s over the whole run (whiskers: slowest and fastest round).',
      );
      return {
        cases,
        notices,
        figures: latencyFigures(cases, plan.clients),
        tables: [latencyTable(cases, plan.clients)],
        facts: {
          plan,
          readSession: {
            entries: readSession.entries.length,
            compactions: readSession.compactionCount,
            contextResponseBytes: contextBytes,
          },
          tokenizer: 'chars4',
        },
      };
    } finally {
      await app.close();
    }
  },
};
