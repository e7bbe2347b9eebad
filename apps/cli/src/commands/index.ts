// Every command of the `strata` CLI, in the order `strata help` lists them.
import type { CliCommand } from '../cli-io';
import { anchorsCommand } from './anchors.command';
import { compactCommand } from './compact.command';
import { contextCommand } from './context.command';
import { eraseCommand } from './erase.command';
import { exportCommand } from './export.command';
import { importCommand } from './import.command';
import { navigateCommand } from './navigate.command';
import { prepareCompactionCommand } from './prepare-compaction.command';
import { replayCommand } from './replay.command';
import { retentionCommand } from './retention.command';
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
  eraseCommand,
  retentionCommand,
  replayCommand,
  tailCommand,
  watchCommand,
];
