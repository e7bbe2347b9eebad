// Dispatches `strata <command> [options]` to its command; prints usage and errors.
import { CliError, type CliCommand, type CliIo } from './cli-io';

export async function runCli(
  argv: readonly string[],
  io: CliIo,
  commands: readonly CliCommand[],
): Promise<number> {
  const [name, ...rest] = argv;
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
    if (error instanceof CliError) {
      io.stderr(`strata ${command.name}: ${error.message}\n`);
      if (error.exitCode === 2) io.stderr(`usage: ${command.usage}\n`);
      return error.exitCode;
    }
    io.stderr(
      `strata ${command.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

function usageText(commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `usage: strata <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun 'strata <command> --help' for the options of one command.\n`;
}
