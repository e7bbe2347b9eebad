// Suite `http` (issues 6 and 22): the engine's HTTP API measured from outside. The engine runs as
// its own process (`node bin/engine.js`, what `npm start` runs, default settings) on a SQLite file
// in the scratch directory; the load comes from another process, wrk with wrk-load.lua (a closed
// loop over kept-alive connections), one wrk process per run, which reports its figures as JSON.
// Measured: appends/s and p50/p99 for 1, 4, 16 and 64 agents, each appending one small user
// message at a time to its own chained session; GET context of a 1,000-entry session and GET one
// session; next to the baseline, GET /health of the same engine with 16 connections, in the same
// run. Beside each run: the engine's CPU time per request (/proc/<pid>/stat, read just before wrk
// starts and just after it ends), the catch-up after the run (until /ready has 0 positions
// behind) and its CPU, the engine's longest event-loop stall (a preloaded probe), wrk's own CPU.
import * as path from 'node:path';
import type { BenchSuite } from '../harness';
import { startEngineChild, untilCaughtUp } from '../engine-process/engine-child';
import { goalChecks, goalTable } from './http-goals';
import { chartFigures, mainTable } from './http-report';
import { caseResult } from './http-results';
import { runOnce, seedReadSession, type RunRecord } from './http-run';
import { AGENT_COUNTS, fullPlan, quickPlan, READ_SESSION_ID, specs } from './http-scenarios';

export const httpSuite: BenchSuite = {
  name: 'http',
  title:
    "HTTP API from outside: the engine's own process under a load generator in another, against GET /health of the same engine",
  async run(context) {
    const { progress, scratchDirectory, quick } = context;
    const plan = quick ? quickPlan : fullPlan;
    const engine = await startEngineChild(
      scratchDirectory,
      { STRATA_STORE: `sqlite:${path.join(scratchDirectory, 'http.db')}` },
      { eventLoopProbe: true },
    );
    try {
      progress.step('http', `engine pid ${engine.pid} at ${engine.url}; seeding the read session`);
      const readSession = await seedReadSession(engine.url);
      const contextResponse = await fetch(`${engine.url}/sessions/${READ_SESSION_ID}/context`);
      const contextBytes = (await contextResponse.arrayBuffer()).byteLength;
      await untilCaughtUp(engine);
      const runs = specs.map((): RunRecord[] => []);
      for (let round = 0; round < plan.rounds; round += 1) {
        for (const [index, spec] of specs.entries()) {
          runs[index]!.push(await runOnce(engine, spec, round, plan, progress));
        }
      }
      engine.assertRunning();
      const memory = engine.memory();
      const cases = specs.map((spec, index) => caseResult(spec, runs[index]!));
      const checks = goalChecks(cases);
      const notices = checks.map(
        (check) => `${check.met ? 'goal met' : 'goal MISSED'}: ${check.goal}: ${check.measured}`,
      );
      for (const result of cases) {
        if (result.details['unexpected'] !== 0) {
          notices.push(
            `${result.name}: ${String(result.details['unexpected'])} unexpected answers (${String(result.details['firstProblem'])})`,
          );
        }
      }
      notices.push(
        'The engine (`node bin/engine.js`, default settings, SQLite) and the load generator (wrk, kept-alive connections, closed loop) are separate processes on the same two cores: ' +
          "wrk's own CPU is in the table. Engine CPU is user + system from /proc/<pid>/stat (10 ms ticks) from just before wrk started until it ended; " +
          'the catch-up after it is the work still owed to the read models once wrk had stopped (until /ready had 0 positions behind). ' +
          'The longest stall is the largest delay of a 10 ms timer in the engine less its 10 ms (monitorEventLoopDelay, preloaded); on a loaded machine it includes time the engine was not scheduled.',
      );
      return {
        cases,
        notices,
        figures: chartFigures(cases),
        tables: [mainTable(cases, plan), goalTable(checks)],
        facts: {
          plan,
          agentCounts: AGENT_COUNTS,
          readSession: { ...readSession, contextResponseBytes: contextBytes },
          engine: {
            pid: engine.pid,
            settings: 'defaults (tokenizer o200k, anchors on, one tenant without API keys)',
            peakRssBytes: memory.peakRssBytes,
            endRssBytes: memory.rssBytes,
          },
          goals: checks,
          runs: specs.map((spec, index) => ({
            name: spec.name,
            rounds: runs[index]!.map((record) => ({
              requests: record.run.requests,
              durationMs: record.run.durationMs,
              connections: record.run.connections,
              wrkThreads: record.run.threads,
              statuses: record.run.statuses,
              unexpected: record.run.unexpected,
              latencyMs: {
                min: record.run.minMs,
                p50: record.run.tenthsMs[499],
                p99: record.run.tenthsMs[989],
                max: record.run.maxMs,
                mean: record.run.meanMs,
              },
              setupMs: Math.round(record.setupMs),
              engineCpuMs: record.engineCpuMs,
              wrkCpuMs: record.run.generatorCpuMs,
              catchUpMs: Math.round(record.catchUpMs),
              catchUpCpuMs: record.catchUpCpuMs,
              loop: record.loop,
            })),
          })),
        },
      };
    } finally {
      await engine.stop();
    }
  },
};
