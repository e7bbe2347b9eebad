// `npm run bench`: runs every benchmark suite (or those named with --suite), writes
// bench/results/<suite>.json and .svg and bench/results/SUMMARY.md, with progress on stderr.
// A run of every suite also writes bench/results/run.json (wall and CPU time, load averages).
//   node bin/run-ts.js bench/run-all.ts [--suite <name>]... [--quick]
// A quick run uses smaller data sets and fewer iterations and writes to bench/results/quick/.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { contextSuite } from './context/context-suite';
import {
  compareWithBaselines,
  describeMachine,
  formatDuration,
  markdownSummary,
  readRunRecord,
  readSuiteResults,
  stderrProgress,
  writeRunRecord,
  writeSuiteResult,
  type BenchSuite,
  type MeasureSettings,
  type SuiteResult,
} from './harness';
import { httpSuite } from './http/http-suite';
import { importSuite } from './import/import-suite';
import { isolationSuite } from './isolation/isolation-suite';
import { projectionSuite } from './projection/projection-suite';
import { sagasSuite } from './sagas/sagas-suite';
import { startupSuite } from './startup/startup-suite';
import { storeSuite } from './store/store-suite';
import { summariesSuite } from './summaries/summaries-suite';
import { tokenizerSuite } from './tokenizer/tokenizer-suite';
import { watchSuite } from './watch/watch-suite';

const repositoryRoot = path.resolve(__dirname, '..');
const suites: readonly BenchSuite[] = [
  contextSuite,
  storeSuite,
  importSuite,
  projectionSuite,
  httpSuite,
  tokenizerSuite,
  sagasSuite,
  summariesSuite,
  isolationSuite,
  watchSuite,
  startupSuite,
];

const defaultSettings: MeasureSettings = {
  warmupIterations: 2,
  iterations: 10,
  maxSeconds: 10,
  minIterations: 3,
};
const quickSettings: MeasureSettings = {
  warmupIterations: 1,
  iterations: 3,
  maxSeconds: 2,
  minIterations: 2,
};

function usage(): string {
  return `usage: npm run bench -- [--suite <${suites.map((suite) => suite.name).join('|')}>]... [--quick]\n`;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string', multiple: true },
      quick: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(usage());
    return 0;
  }
  const wanted = (values.suite ?? []).flatMap((name) => name.split(','));
  const unknown = wanted.filter((name) => !suites.some((suite) => suite.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`unknown suite(s): ${unknown.join(', ')}\n${usage()}`);
    return 2;
  }
  const selected = wanted.length === 0 ? suites : suites.filter((suite) => wanted.includes(suite.name));
  const quick = values.quick;
  const resultsDirectory = path.join(repositoryRoot, 'bench', 'results', ...(quick ? ['quick'] : []));
  const progress = stderrProgress();
  const runStarted = process.hrtime.bigint();
  const runStartedAt = new Date();
  const cpuAtStart = process.cpuUsage();
  const loadAverageAtStart = roundedLoadAverage();
  progress.note(
    `running ${selected.map((suite) => suite.name).join(', ')}${quick ? ' (quick)' : ''} on ` +
      `${os.cpus().length} cores, load average ${loadAverageAtStart.join(' / ')}`,
  );
  const failedSuites: string[] = [];
  const secondsPerSuite: Record<string, number> = {};
  for (const [index, suite] of selected.entries()) {
    progress.note(`suite ${index + 1}/${selected.length}: ${suite.name}`);
    const suiteStarted = process.hrtime.bigint();
    const scratchDirectory = fs.mkdtempSync(path.join(os.tmpdir(), `strata-bench-${suite.name}-`));
    const startedAt = new Date();
    const machine = describeMachine(repositoryRoot);
    const settings = quick ? quickSettings : defaultSettings;
    try {
      const outcome = await suite.run({ quick, progress, settings, scratchDirectory });
      const finishedAt = new Date();
      const result: SuiteResult = {
        suite: suite.name,
        title: suite.title,
        quick,
        startedAt: startedAt.toISOString(),
        finishedAt: finishedAt.toISOString(),
        durationSeconds: Math.round((finishedAt.getTime() - startedAt.getTime()) / 100) / 10,
        settings,
        machine,
        loadAverageAtEnd: roundedLoadAverage(),
        cases: outcome.cases,
        comparisons: compareWithBaselines(outcome.cases),
        notices: outcome.notices,
        facts: outcome.facts,
        ...(outcome.figures !== undefined ? { figures: outcome.figures } : {}),
        ...(outcome.tables !== undefined ? { tables: outcome.tables } : {}),
      };
      const written = writeSuiteResult(result, resultsDirectory);
      progress.step(
        suite.name,
        `wrote ${path.relative(repositoryRoot, written.json)} and ${path.relative(repositoryRoot, written.svg)}`,
      );
      for (const notice of outcome.notices) progress.step(suite.name, `notice: ${notice}`);
    } catch (error) {
      failedSuites.push(suite.name);
      progress.step(
        suite.name,
        `FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    } finally {
      fs.rmSync(scratchDirectory, { recursive: true, force: true });
      const suiteSeconds = round(Number(process.hrtime.bigint() - suiteStarted) / 1e9);
      secondsPerSuite[suite.name] = suiteSeconds;
      progress.note(`suite ${suite.name} took ${formatDuration(suiteSeconds)}`);
    }
  }
  const seconds = Number(process.hrtime.bigint() - runStarted) / 1e9;
  const cpu = process.cpuUsage(cpuAtStart);
  if (selected.length === suites.length) {
    writeRunRecord(
      {
        startedAt: runStartedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        quick,
        suites: selected.map((suite) => suite.name),
        failedSuites,
        wallSeconds: round(seconds),
        cpuSeconds: round((cpu.user + cpu.system) / 1e6),
        secondsPerSuite,
        loadAverageAtStart,
        loadAverageAtEnd: roundedLoadAverage(),
        cpuCount: os.cpus().length,
      },
      resultsDirectory,
    );
  }
  fs.mkdirSync(resultsDirectory, { recursive: true });
  fs.writeFileSync(
    path.join(resultsDirectory, 'SUMMARY.md'),
    markdownSummary(readSuiteResults(resultsDirectory), readRunRecord(resultsDirectory)),
  );
  progress.note(
    `done in ${formatDuration(seconds)} (${seconds.toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU)` +
      `${failedSuites.length > 0 ? `; failed: ${failedSuites.join(', ')}` : ''}`,
  );
  return failedSuites.length > 0 ? 1 : 0;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function roundedLoadAverage(): number[] {
  return os.loadavg().map((value) => Math.round(value * 100) / 100);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
