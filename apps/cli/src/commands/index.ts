// Every command of the `strata` CLI, in the order `strata help` lists them.
import type { CliCommand } from '../cli-io';
import { contextCommand } from './context.command';
import { exportCommand } from './export.command';
import { importCommand } from './import.command';
import { prepareCompactionCommand } from './prepare-compaction.command';

export const commands: CliCommand[] = [
  contextCommand,
  prepareCompactionCommand,
  importCommand,
  exportCommand,
];
