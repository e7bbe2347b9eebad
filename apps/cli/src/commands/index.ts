// Every command of the `strata` CLI, in the order `strata help` lists them.
import type { CliCommand } from '../cli-io';
import { anchorsCommand } from './anchors.command';
import { compactCommand } from './compact.command';
import { contextCommand } from './context.command';
import { exportCommand } from './export.command';
import { importCommand } from './import.command';
import { navigateCommand } from './navigate.command';
import { prepareCompactionCommand } from './prepare-compaction.command';
import { replayCommand } from './replay.command';
import { tailCommand } from './tail.command';
import { verifyCommand } from './verify.command';
import { watchCommand } from './watch.command';

export const commands: CliCommand[] = [
  contextCommand,
  prepareCompactionCommand,
  importCommand,
  exportCommand,
  compactCommand,
  navigateCommand,
  verifyCommand,
  anchorsCommand,
  replayCommand,
  tailCommand,
  watchCommand,
];
