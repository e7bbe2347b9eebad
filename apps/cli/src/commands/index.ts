// Every command of the `strata` CLI, in the order `strata help` lists them.
import type { CliCommand } from '../cli-io';

export const commands: CliCommand[] = [];
