// `npm run bench`: runs every benchmark suite (or those named with --suite), writes
// bench/results/<suite>.json and .svg and bench/results/SUMMARY.md, with progress on stderr.
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
  markdownSummary,
  readSuiteResults,
  stderrProgress,
  writeSuiteResult,
  type BenchSuite,
  type MeasureSettings,
  type SuiteResult,
} from './harness';
import { httpSuite } from './http/http-suite';
import { projectionSuite } from './projection/projection-suite';
import { storeSuite } from './store/store-suite';

const repositoryRoot = path.resolve(__dirname, '..');
const suites: readonly BenchSuite[] = [contextSuite, storeSuite, projectionSuite, httpSuite];

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
  progress.note(`running ${selected.map((suite) => suite.name).join(', ')}${quick ? ' (quick)' : ''}`);
  let failures = 0;
  for (const suite of selected) {
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
        loadAverageAtEnd: os.loadavg().map((value) => Math.round(value * 100) / 100),
        cases: outcome.cases,
        comparisons: compareWithBaselines(outcome.cases),
        notices: outcome.notices,
        facts: outcome.facts,
      };
      const written = writeSuiteResult(result, resultsDirectory);
      progress.step(
        suite.name,
        `wrote ${path.relative(repositoryRoot, written.json)} and ${path.relative(repositoryRoot, written.svg)}`,
      );
      for (const notice of outcome.notices) progress.step(suite.name, `notice: ${notice}`);
    } catch (error) {
      failures += 1;
      progress.step(
        suite.name,
        `FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    } finally {
      fs.rmSync(scratchDirectory, { recursive: true, force: true });
    }
  }
  fs.mkdirSync(resultsDirectory, { recursive: true });
  fs.writeFileSync(
    path.join(resultsDirectory, 'SUMMARY.md'),
    markdownSummary(readSuiteResults(resultsDirectory)),
  );
  const seconds = Number(process.hrtime.bigint() - runStarted) / 1e9;
  progress.note(`done in ${seconds.toFixed(1)} s${failures > 0 ? `, ${failures} suite(s) failed` : ''}`);
  return failures > 0 ? 1 : 0;
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
