// A CliIo that records what a command prints, for in-process command tests.
import type { CliIo } from './cli-io';

export interface RecordingIo extends CliIo {
  readonly out: () => string;
  readonly err: () => string;
}

export function recordingIo(env: Record<string, string | undefined> = {}, cwd = process.cwd()): RecordingIo {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout: (text) => stdout.push(text),
    stderr: (text) => stderr.push(text),
    env,
    cwd,
    out: () => stdout.join(''),
    err: () => stderr.join(''),
  };
}
