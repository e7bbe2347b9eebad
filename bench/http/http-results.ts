// The http suite's result per row: the measured runs of every round pooled into one case (the
// latencies of every request, requests/s per round, the engine's and wrk's CPU per request, the
// longest stall, the unexpected answers), and how the report reads a figure back.
import { memorySnapshot, summariseDurations, type CaseResult } from '../harness';
import type { RunRecord } from './http-run';
import type { RunSpec } from './http-scenarios';
import { pooledLatenciesMs } from './wrk-load';

const round1 = (value: number): number => Math.round(value * 10) / 10;
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

export function caseResult(spec: RunSpec, records: readonly RunRecord[]): CaseResult {
  const runs = records.map((record) => record.run);
  const timing = summariseDurations(pooledLatenciesMs(runs).map((value) => BigInt(Math.round(value * 1e6))));
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const durationMs = runs.reduce((sum, run) => sum + run.durationMs, 0);
  const engineCpuMs = records.reduce((sum, record) => sum + record.engineCpuMs, 0);
  const catchUpCpuMs = records.reduce((sum, record) => sum + record.catchUpCpuMs, 0);
  const generatorCpuMs = runs.reduce((sum, run) => sum + run.generatorCpuMs, 0);
  const rates = runs.map((run) => run.requests / (run.durationMs / 1000));
  const statuses: Record<string, number> = {};
  for (const run of runs)
    for (const [status, count] of Object.entries(run.statuses))
      statuses[status] = (statuses[status] ?? 0) + count;
  return {
    name: spec.name,
    group: 'HTTP API on loopback, load generator (wrk) in its own process',
    role: spec.role,
    label: spec.label,
    unit: 'request',
    operationsPerIteration: 1,
    warmupIterations: 0,
    ...timing,
    operationsPerSecond: round1(requests / (durationMs / 1000)),
    operationsPerSecondP90Time: round1(Math.min(...rates)),
    operationsPerSecondP10Time: round1(Math.max(...rates)),
    memoryAfter: memorySnapshot(),
    details: {
      connections: spec.connections,
      agents: spec.agents,
      wrkThreads: runs[0]!.threads,
      rounds: runs.length,
      requests,
      requestsPerSecond: round1(requests / (durationMs / 1000)),
      p50Ms: round3(timing.medianMs),
      p90Ms: round3(timing.p90Ms),
      p99Ms: round3(timing.p99Ms),
      maxMs: round3(timing.maxMs),
      p99OverP50: Math.round((timing.p99Ms / timing.medianMs) * 100) / 100,
      engineCpuMsPerRequest: round3(engineCpuMs / requests),
      engineCpuMsPerRequestWithCatchUp: round3((engineCpuMs + catchUpCpuMs) / requests),
      engineCpuPercentOfOneCore: round1((engineCpuMs / durationMs) * 100),
      generatorCpuMsPerRequest: round3(generatorCpuMs / requests),
      generatorCpuPercentOfOneCore: round1((generatorCpuMs / durationMs) * 100),
      longestStallMs: Math.max(...records.map((record) => record.loop.longestStallMs)),
      catchUpMsMax: round1(Math.max(...records.map((record) => record.catchUpMs))),
      unexpected: runs.reduce((sum, run) => sum + run.unexpected, 0),
      firstProblem: runs.find((run) => run.firstProblem !== null)?.firstProblem ?? '',
      statuses: JSON.stringify(statuses),
    },
  };
}

export const detail = (result: CaseResult, key: string): number => Number(result.details[key]);
