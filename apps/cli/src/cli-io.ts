// What a command may touch of the outside world, so tests can run commands in-process.
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** A command failure with a message for stderr and an exit code (2 = usage, 1 = failure). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface CliCommand {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

/** What a command's module exports: its summary is in the list of commands (commands/index.ts). */
export type CommandImplementation = Omit<CliCommand, 'summary'>;

/** Ends quietly when stdout is closed early (`strata export … | head`). */
function exitOnClosedPipe(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
}

export function processIo(): CliIo {
  process.stdout.on('error', exitOnClosedPipe);
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
  };
}
