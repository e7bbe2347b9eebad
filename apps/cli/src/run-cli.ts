// Dispatches `strata <command> [options]` to its command; answers `--version`, `help` and
// `help <command>`; prints usage and errors. It loads only what the command asked for needs
// (commands/index.ts), so that `--help` and `--version` answer at once.
/* eslint-disable @typescript-eslint/no-require-imports -- modules only some paths need are required there */
import { CliError, type CliCommand, type CliIo } from './cli-io';
import type { userMistake as UserMistake } from './shared/user-mistakes';
import type { strataVersion as StrataVersion } from './version';

export async function runCli(
  argv: readonly string[],
  io: CliIo,
  commands: readonly CliCommand[],
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version') {
    const { strataVersion } = require('./version') as { strataVersion: typeof StrataVersion };
    io.stdout(`strata ${strataVersion()}\n`);
    return 0;
  }
  if (name === 'help' && rest.length > 0) return helpOf(rest, io, commands);
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.stdout(usageText(commands));
    return name === undefined ? 2 : 0;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr(`strata: unknown command '${name}'\n\n${usageText(commands)}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    // Told apart from the errors of every library and of the engine: loaded only on failure.
    const { userMistake } = require('./shared/user-mistakes') as { userMistake: typeof UserMistake };
    const mistake = userMistake(error);
    if (mistake !== undefined) {
      io.stderr(`strata ${command.name}: ${mistake.message}\n`);
      if (mistake.exitCode === 2 && error instanceof CliError) io.stderr(shortUsage(command));
      return mistake.exitCode;
    }
    io.stderr(
      `strata ${command.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

/** After a usage error: the command's synopsis, and where its options and examples are. */
function shortUsage(command: CliCommand): string {
  const synopsis = command.usage
    .split('\n')
    .filter((line) => line.startsWith('strata ') || /^\s+\[/.test(line));
  return `usage: ${synopsis.join('\n')}\nRun 'strata help ${command.name}' for its options and examples.\n`;
}

/** `strata help <command>`: that command's help, as `strata <command> --help` prints it. */
function helpOf(names: readonly string[], io: CliIo, commands: readonly CliCommand[]): number {
  const [name] = names;
  const command = commands.find((candidate) => candidate.name === name);
  if (command === undefined || names.length > 1) {
    const known = commands.map((candidate) => candidate.name).join(', ');
    io.stderr(
      names.length > 1
        ? `strata help: give one command, not ${names.length}; commands: ${known}\n`
        : `strata help: unknown command '${name}'; commands: ${known}\n`,
    );
    return 2;
  }
  io.stdout(`${command.usage}\n`);
  return 0;
}

function usageText(commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `usage: strata <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun 'strata <command> --help' (or 'strata help <command>') for the options of one command,\n'strata --version' for the version.\n`;
}
