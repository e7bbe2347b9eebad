// Entry point of the `strata` command (bin/strata.js).
import { processIo } from './cli-io';
import { commands } from './commands';
import { runCli } from './run-cli';

void runCli(process.argv.slice(2), processIo(), commands).then((code) => {
  process.exitCode = code;
});
