// Suite `startup` (issue 27 item 2): how long the built programs take to start, timed by hyperfine
// in its own process, each command a new process, as a user or a script meets them. Two groups,
// each next to its baseline: `strata --help` and `strata --version` against `node -e 0` (goal:
// --help ≤ 5 ×), and `node bin/engine.js` (what `npm start` runs) to its first answer of
// /health against `require('@nestjs/core')` alone (goal ≤ 3 ×); `npm start` itself and the engine
// run from its sources through swc (scripts/register.js, as the tests run it, and as every start
// did before dist/) are measured beside them. The engine is started by first-health.sh, which
// waits for its "listening on" line, asks /health once and kills it; it starts on the same small
// SQLite store in the scratch directory every time. Rounds alternate the commands of a group, so
// that load from elsewhere on the machine falls on baseline and subjects alike.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  memorySnapshot,
  operationsPerSecond,
  summariseDurations,
  type BenchSuite,
  type CaseResult,
  type CaseRole,
  type SummaryTable,
} from '../harness';

const repositoryRoot = path.resolve(__dirname, '..', '..');
const firstHealth = path.join(__dirname, 'first-health.sh');

interface StartupCommand {
  readonly name: string;
  readonly label: string;
  readonly role: CaseRole;
  /** As hyperfine runs it, without a shell (`-N`): words split as a shell would. */
  readonly command: string;
}

interface StartupGroup {
  readonly title: string;
  readonly commands: readonly StartupCommand[];
  /** The goal: the first subject's median at most this many times the baseline's. */
  readonly goalFactor: number;
  readonly goalSubject: string;
}

const quote = (text: string): string => `'${text}'`;
const node = (...words: string[]): string => ['node', ...words].join(' ');

const cliGroup: StartupGroup = {
  title: 'strata --help and --version, built (dist/), against an empty node',
  goalFactor: 5,
  goalSubject: 'startup/strata-help',
  commands: [
    { name: 'startup/node', label: 'node -e 0', role: 'baseline', command: node('-e', '0') },
    {
      name: 'startup/strata-help',
      label: 'strata --help',
      role: 'subject',
      command: node(path.join(repositoryRoot, 'bin', 'strata.js'), '--help'),
    },
    {
      name: 'startup/strata-version',
      label: 'strata --version',
      role: 'subject',
      command: node(path.join(repositoryRoot, 'bin', 'strata.js'), '--version'),
    },
  ],
};

const requireNest = `require(require.resolve(${quote('@nestjs/core')},{paths:[${quote(repositoryRoot)}]}))`;

const engineGroup: StartupGroup = {
  title: 'the engine to its first /health answer, against loading @nestjs/core',
  goalFactor: 3,
  goalSubject: 'startup/engine',
  commands: [
    {
      name: 'startup/require-nestjs-core',
      label: "require('@nestjs/core')",
      role: 'baseline',
      command: node('-e', `"${requireNest}"`),
    },
    {
      name: 'startup/engine',
      label: 'node bin/engine.js → /health',
      role: 'subject',
      command: ['bash', firstHealth, 'node', path.join(repositoryRoot, 'bin', 'engine.js')].join(' '),
    },
    {
      name: 'startup/npm-start',
      label: 'npm start → /health',
      role: 'subject',
      command: ['bash', firstHealth, 'npm', '--silent', '--prefix', repositoryRoot, 'start'].join(' '),
    },
    {
      name: 'startup/engine-from-sources',
      label: 'engine from its sources (swc at start) → /health',
      role: 'subject',
      command: [
        'bash',
        firstHealth,
        'node',
        path.join(repositoryRoot, 'bin', 'run-ts.js'),
        path.join(repositoryRoot, 'apps', 'engine', 'src', 'main.ts'),
      ].join(' '),
    },
  ],
};

interface HyperfineExport {
  readonly results: readonly {
    readonly command: string;
    readonly times: readonly number[];
    /** Mean CPU seconds of a run (the process and the children it waited for). */
    readonly user: number;
    readonly system: number;
  }[];
}

interface RoundFigures {
  /** Wall-clock seconds of each timed run. */
  readonly times: readonly number[];
  /** Mean user + system CPU seconds of a run. */
  readonly cpuSeconds: number;
}

/** One hyperfine run of every command of a group: its figures, by command. */
function hyperfineRound(
  group: StartupGroup,
  runs: number,
  scratchDirectory: string,
  environment: NodeJS.ProcessEnv,
): RoundFigures[] {
  const exported = path.join(scratchDirectory, 'hyperfine.json');
  execFileSync(
    'hyperfine',
    [
      '--shell=none',
      '--warmup',
      '1',
      '--runs',
      String(runs),
      '--style',
      'none',
      '--export-json',
      exported,
      ...group.commands.map((command) => command.command),
    ],
    { cwd: scratchDirectory, env: environment, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const results = (JSON.parse(fs.readFileSync(exported, 'utf8')) as HyperfineExport).results;
  return group.commands.map((command, index) => {
    const result = results[index];
    if (result?.command !== command.command) throw new Error(`hyperfine did not report ${command.name}`);
    return { times: result.times, cpuSeconds: result.user + result.system };
  });
}

function caseOf(group: StartupGroup, command: StartupCommand, rounds: readonly RoundFigures[]): CaseResult {
  const seconds = rounds.flatMap((round) => round.times);
  const timing = summariseDurations(seconds.map((value) => BigInt(Math.round(value * 1e9))));
  const cpuMs = (rounds.reduce((sum, round) => sum + round.cpuSeconds, 0) / rounds.length) * 1000;
  return {
    name: command.name,
    group: group.title,
    role: command.role,
    label: command.label,
    unit: 'start',
    operationsPerIteration: 1,
    warmupIterations: 1,
    ...timing,
    operationsPerSecond: operationsPerSecond(1, timing.medianMs),
    operationsPerSecondP90Time: operationsPerSecond(1, timing.p90Ms),
    operationsPerSecondP10Time: operationsPerSecond(1, timing.p10Ms),
    memoryAfter: memorySnapshot(),
    details: {
      command: command.command,
      measuredBy: 'hyperfine --shell=none',
      meanCpuMs: Math.round(cpuMs * 10) / 10,
    },
  };
}

interface GoalCheck {
  readonly goal: string;
  readonly measured: string;
  readonly met: boolean;
}

function goalCheck(group: StartupGroup, cases: readonly CaseResult[]): GoalCheck {
  const baseline = cases.find((result) => result.group === group.title && result.role === 'baseline')!;
  const subject = cases.find((result) => result.name === group.goalSubject)!;
  const factor = subject.medianMs / baseline.medianMs;
  const cpu = (result: CaseResult): number => Number(result.details['meanCpuMs']);
  return {
    goal: `${subject.label} ≤ ${group.goalFactor} × ${baseline.label} (medians)`,
    measured:
      `${subject.medianMs.toFixed(0)} ms / ${baseline.medianMs.toFixed(0)} ms = ×${factor.toFixed(2)} ` +
      `(CPU time: ${cpu(subject).toFixed(0)} ms / ${cpu(baseline).toFixed(0)} ms = ×${(cpu(subject) / cpu(baseline)).toFixed(2)})`,
    met: factor <= group.goalFactor,
  };
}

function goalTable(checks: readonly GoalCheck[]): SummaryTable {
  return {
    title: 'Goals of issue 27 for the startup suite',
    columns: ['goal', 'measured', 'verdict'],
    rows: checks.map((check) => [check.goal, check.measured, check.met ? 'met' : '**missed**']),
  };
}

export const startupSuite: BenchSuite = {
  name: 'startup',
  title:
    'Start-up of the built CLI and engine, timed from outside by hyperfine, against node and @nestjs/core',
  run(context) {
    const { progress, scratchDirectory, quick } = context;
    const rounds = quick ? 1 : 5;
    const runsPerRound = quick ? 3 : 4;
    const dataDirectory = path.join(scratchDirectory, 'data');
    const environment: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: '0',
      STRATA_HOST: '127.0.0.1',
      STRATA_STORE: `sqlite:${path.join(dataDirectory, 'strata.db')}`,
      STRATA_SIGNING_KEY_FILE: path.join(dataDirectory, 'signing-key.pem'),
    };
    // One start in the scratch directory makes the store and the signing key every run then uses.
    execFileSync('bash', [firstHealth, 'node', path.join(repositoryRoot, 'bin', 'engine.js')], {
      cwd: scratchDirectory,
      env: { ...process.env, PORT: '0', STRATA_HOST: '127.0.0.1' },
      stdio: 'ignore',
    });
    const cases: CaseResult[] = [];
    for (const group of [cliGroup, engineGroup]) {
      const figures = group.commands.map((): RoundFigures[] => []);
      for (let round = 0; round < rounds; round += 1) {
        progress.step('startup', `${group.title}: round ${round + 1}/${rounds}`);
        hyperfineRound(group, runsPerRound, scratchDirectory, environment).forEach((roundFigures, index) =>
          figures[index]!.push(roundFigures),
        );
      }
      group.commands.forEach((command, index) => cases.push(caseOf(group, command, figures[index]!)));
    }
    const checks = [goalCheck(cliGroup, cases), goalCheck(engineGroup, cases)];
    return Promise.resolve({
      cases,
      notices: [
        ...checks.map(
          (check) => `${check.met ? 'goal met' : 'goal MISSED'}: ${check.goal}: ${check.measured}`,
        ),
        `Node ${process.version} ran every command (the node first on PATH). Each figure is a new process from exec to exit; ` +
          'an engine figure also holds first-health.sh (bash, one curl) and the kill of its process group. ' +
          "CPU time is hyperfine's mean user + system time of a run (with the children it waited for): less moved by other work on the machine than the wall time.",
      ],
      facts: {
        rounds,
        runsPerRound,
        hyperfine: execFileSync('hyperfine', ['--version'], { encoding: 'utf8' }).trim(),
      },
      tables: [goalTable(checks)],
    });
  },
};
