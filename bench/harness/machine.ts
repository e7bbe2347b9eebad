// The machine a run happened on, recorded with every result file.
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';

export interface MachineDescription {
  readonly cpuModel: string;
  readonly cpuCount: number;
  readonly totalMemoryBytes: number;
  readonly nodeVersion: string;
  readonly v8Version: string;
  readonly platform: string;
  readonly arch: string;
  readonly osRelease: string;
  /** The commit checked out when the run started, or `unknown` outside a git checkout. */
  readonly gitCommit: string;
  /** Whether the working tree had changes (other than the results themselves). */
  readonly gitDirty: boolean | null;
  /** 1, 5 and 15 minute load averages when the description was taken. */
  readonly loadAverage: readonly number[];
}

function git(repositoryRoot: string, args: readonly string[]): string | null {
  try {
    return execFileSync('git', args, {
      cwd: repositoryRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

export function describeMachine(repositoryRoot: string): MachineDescription {
  const cpus = os.cpus();
  const status = git(repositoryRoot, ['status', '--porcelain', '--', '.', ':(exclude)bench/results']);
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    totalMemoryBytes: os.totalmem(),
    nodeVersion: process.version,
    v8Version: process.versions.v8,
    platform: process.platform,
    arch: process.arch,
    osRelease: os.release(),
    gitCommit: git(repositoryRoot, ['rev-parse', 'HEAD']) ?? 'unknown',
    gitDirty: status === null ? null : status.length > 0,
    loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
  };
}
