// The dispatcher itself: `--version`, `help`, `help <command>` and unknown commands.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { repositoryRoot } from '@strata/testing';
import { commands } from './commands';
import { runCli } from './run-cli';
import { recordingIo } from './testing-io';

const rootVersion = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8'))).version;

describe('strata', () => {
  it('--version prints the version of the root package.json', async () => {
    const io = recordingIo();
    expect(await runCli(['--version'], io, commands)).toBe(0);
    expect(io.out()).toBe(`strata ${rootVersion}\n`);
    expect(io.err()).toBe('');
  });

  it('help <command> prints what <command> --help prints', async () => {
    for (const command of commands) {
      const viaHelp = recordingIo();
      const viaFlag = recordingIo();
      expect(await runCli(['help', command.name], viaHelp, commands)).toBe(0);
      expect(await runCli([command.name, '--help'], viaFlag, commands)).toBe(0);
      expect(viaHelp.out()).toBe(viaFlag.out());
      expect(viaHelp.out()).toContain(`strata ${command.name}`);
    }
  });

  it.each(commands.map((command) => [command.name, command] as const))(
    '%s --help gives each option of its synopsis a line of its own, and examples',
    (name, command) => {
      const lines = command.usage.split('\n');
      const synopsis = lines.filter((line) => line.startsWith('strata ') || /^\s+\[/.test(line)).join(' ');
      const options = new Set([...synopsis.matchAll(/--[a-z][a-z-]*/g)].map(([option]) => option));
      expect(options.size).toBeGreaterThan(0);
      for (const option of options) {
        const described = lines.some((line) =>
          new RegExp(`^\\s+(?:--[a-z-]+, )*${option}\\b[^:]*:`).test(line),
        );
        if (!described) throw new Error(`strata ${name} --help has no line for ${option}`);
      }
      const examples = lines.slice(lines.indexOf('examples:') + 1);
      expect(lines).toContain('examples:');
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples)
        expect(example).toMatch(new RegExp(`^  (\\S+=\\S+ )?strata ${name}\\b`));
    },
  );

  it('a usage error prints the synopsis and where the options are, not the whole help', async () => {
    const io = recordingIo();
    expect(await runCli(['compact'], io, commands)).toBe(2);
    expect(io.err()).toBe(
      'strata compact: expected exactly one session id\n' +
        'usage: strata compact <sessionId> [--instructions "…"] [--force] [--store <url>] [--settings <file.json>] [--actor <name>] [--json]\n' +
        "Run 'strata help compact' for its options and examples.\n",
    );
  });

  it('help of an unknown command is one line naming it and the commands, exit 2', async () => {
    const io = recordingIo();
    expect(await runCli(['help', 'frobnicate'], io, commands)).toBe(2);
    expect(io.out()).toBe('');
    expect(io.err()).toBe(
      `strata help: unknown command 'frobnicate'; commands: ${commands.map((command) => command.name).join(', ')}\n`,
    );
  });

  it('help alone still prints the list of commands, exit 0', async () => {
    const io = recordingIo();
    expect(await runCli(['help'], io, commands)).toBe(0);
    expect(io.out()).toContain("'strata help <command>'");
    for (const command of commands) expect(io.out()).toContain(`  ${command.name} `);
  });
});
