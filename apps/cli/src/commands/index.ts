// Every command of the `strata` CLI, in the order `strata help` lists them, with the one-line
// summary that list shows. A command's module is loaded when the command runs or its help is
// asked for, and not before: `strata --help` and `strata --version` load none of the stores, NestJS
// or the model clients the commands use, so they answer at once (bench/startup).
/* eslint-disable @typescript-eslint/no-require-imports -- each command's module is required on first use */
import type { CliCommand, CommandImplementation } from '../cli-io';

function onFirstUse(name: string, summary: string, load: () => CommandImplementation): CliCommand {
  let loaded: CommandImplementation | undefined;
  const implementation = (): CommandImplementation => {
    loaded ??= load();
    if (loaded.name !== name) throw new Error(`the module of 'strata ${name}' holds '${loaded.name}'`);
    return loaded;
  };
  return {
    name,
    summary,
    get usage() {
      return implementation().usage;
    },
    run: (argv, io) => implementation().run(argv, io),
  };
}

type Module<Name extends string> = Readonly<Record<Name, CommandImplementation>>;

export const commands: CliCommand[] = [
  onFirstUse(
    'context',
    'print the context sent to the model at a leaf of a session',
    () => (require('./context.command') as Module<'contextCommand'>).contextCommand,
  ),
  onFirstUse(
    'prepare-compaction',
    'show what the next compaction of a session file would summarise and keep',
    () =>
      (require('./prepare-compaction.command') as Module<'prepareCompactionCommand'>)
        .prepareCompactionCommand,
  ),
  onFirstUse(
    'import',
    'import pi session files, Claude Code transcripts or Codex rollouts (prints the session ids)',
    () => (require('./import.command') as Module<'importCommand'>).importCommand,
  ),
  onFirstUse(
    'export',
    'print a stored session as a pi v3 JSONL file, the transcript it came from, or its raw event log',
    () => (require('./export.command') as Module<'exportCommand'>).exportCommand,
  ),
  onFirstUse(
    'compact',
    'compact a stored session now and print the compaction entry',
    () => (require('./compact.command') as Module<'compactCommand'>).compactCommand,
  ),
  onFirstUse(
    'navigate',
    "move a stored session's leaf, optionally summarising the branch left behind",
    () => (require('./navigate.command') as Module<'navigateCommand'>).navigateCommand,
  ),
  onFirstUse(
    'verify',
    "check a session's hash chain, the store's records of it and its signed anchors (or of every stream, or of an event file)",
    () => (require('./verify.command') as Module<'verifyCommand'>).verifyCommand,
  ),
  onFirstUse(
    'anchors',
    "print the store's signed anchors (session heads) as JSON Lines",
    () => (require('./anchors.command') as Module<'anchorsCommand'>).anchorsCommand,
  ),
  onFirstUse(
    'erase',
    "erase a session's events for good, leaving an audited erasure record",
    () => (require('./erase.command') as Module<'eraseCommand'>).eraseCommand,
  ),
  onFirstUse(
    'retention',
    "erase the sessions the settings' retention rules say are too old (or list them)",
    () => (require('./retention.command') as Module<'retentionCommand'>).retentionCommand,
  ),
  onFirstUse(
    'replay',
    'rebuild the catalog, audit and search projections from the event log',
    () => (require('./replay.command') as Module<'replayCommand'>).replayCommand,
  ),
  onFirstUse(
    'tail',
    "print the engine's live session events, one JSON line each (resumes after disconnects)",
    () => (require('./tail.command') as Module<'tailCommand'>).tailCommand,
  ),
  onFirstUse(
    'watch',
    'follow session files as they are written and store every complete line',
    () => (require('./watch.command') as Module<'watchCommand'>).watchCommand,
  ),
];
