// `strata watch`: follows the session files under folders (pi's session folder by default) and
// stores each complete line as it is written, into an event store or through an engine, resuming
// from a checkpoint after a restart. Runs until SIGINT or SIGTERM, then writes the checkpoint.
// `--flush-after` stores, once a file has been quiet that long, the entries its reader held back
// that no later line can change (a transcript's last answer, once its lines show it ended).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { openEventStore, resolveStoreUrl, StoreUrlError } from '@strata/event-store';
import { CliError, type CommandImplementation, type CliIo } from '../cli-io';
import { storeOpeningOptions, storeOptionHelp } from '../shared/event-store-option';
import { parseCommandLine, sessionFileFormatOption } from '../shared/options';
import { HttpSink } from '../watch/http-sink';
import { SessionFolderWatcher } from '../watch/session-folder-watcher';
import { CheckpointError, readWatchCheckpoint } from '../watch/watch-checkpoint';
import { EventStoreSink, type WatchSink } from '../watch/watch-sink';

/** pi's session folder under the home directory. */
export function defaultSessionFolder(io: CliIo): string {
  return join(io.env['HOME'] ?? homedir(), '.pi', 'agent', 'sessions');
}

function sinkOf(values: { store?: string; url?: string; 'api-key'?: string }, io: CliIo): WatchSink {
  if (values.store !== undefined && values.url !== undefined) {
    throw new CliError('give --store or --url, not both', 2);
  }
  if (values.url !== undefined) {
    try {
      new URL(values.url);
    } catch {
      throw new CliError(`--url must be a URL, not '${values.url}'`, 2);
    }
    return new HttpSink(values.url, values['api-key'] ?? io.env['STRATA_API_KEY']);
  }
  if (values['api-key'] !== undefined) throw new CliError('--api-key goes with --url', 2);
  try {
    const url = resolveStoreUrl(values.store, io.env);
    return new EventStoreSink(openEventStore(url, storeOpeningOptions(io)), `the store ${url}`);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (error instanceof StoreUrlError) throw new CliError(error.message, 2);
    throw new CliError(`cannot open the store: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `--flush-after` bounds: shorter would cut into one burst of writes, longer is not following any more. */
const FLUSH_AFTER_MIN_MS = 100;
const FLUSH_AFTER_MAX_MS = 3_600_000;

function flushAfterOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const milliseconds = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!(milliseconds >= FLUSH_AFTER_MIN_MS && milliseconds <= FLUSH_AFTER_MAX_MS)) {
    throw new CliError(
      `--flush-after must be a whole number of milliseconds from ${FLUSH_AFTER_MIN_MS} to ${FLUSH_AFTER_MAX_MS}, not '${value}'`,
      2,
    );
  }
  return milliseconds;
}

/** Resolves when the process is asked to stop. */
function stopSignal(): Promise<string> {
  return new Promise((resolveSignal) => {
    const stop = (signal: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveSignal(signal);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

export const watchCommand: CommandImplementation = {
  name: 'watch',
  usage:
    'strata watch [<dir>...] [--store <url> | --url <engine> --api-key <key>] [--checkpoint <file>]\n' +
    '             [--format pi|claude-code|codex|auto] [--flush-after <ms>]\n' +
    "  <dir>: folders searched recursively for *.jsonl (pi's ~/.pi/agent/sessions by default)\n" +
    `  ${storeOptionHelp}; the lines are written into it directly\n` +
    '  --url, --api-key: write through an engine (POST /sessions/import); STRATA_API_KEY sets the key\n' +
    '  --checkpoint: where each file was read to (offset, entries, SHA-256), to resume after a restart\n' +
    "  --format: the files' format; auto (the default) tells each file's from its first lines\n" +
    '  --flush-after: once a file has had no new bytes for this long (100 to 3600000 ms), store what\n' +
    '    its reader held back that no later line can change: a Claude Code answer whose last line bears\n' +
    '    its stop reason or whose turn-end notice was written, a Codex answer whose turn ended; without\n' +
    '    it, they wait for a later line to close them\n' +
    '  Stops on SIGINT or SIGTERM, writing the checkpoint.\n' +
    'examples:\n' +
    '  strata watch --checkpoint ./data/watch.checkpoint\n' +
    '  strata watch ~/.claude/projects --format claude-code --url http://localhost:3000 --api-key "$STRATA_API_KEY"\n' +
    '  strata watch ~/.claude/projects ~/.codex/sessions --flush-after 2000 --checkpoint ./data/watch.checkpoint',
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      {
        store: { type: 'string' },
        url: { type: 'string' },
        'api-key': { type: 'string' },
        checkpoint: { type: 'string' },
        format: { type: 'string', default: 'auto' },
        'flush-after': { type: 'string' },
      },
      true,
    );
    const format = sessionFileFormatOption(values.format);
    const flushAfterMs = flushAfterOption(values['flush-after']);
    const folders =
      positionals.length > 0
        ? positionals.map((folder) => resolve(io.cwd, folder))
        : [defaultSessionFolder(io)];
    const checkpointPath = values.checkpoint !== undefined ? resolve(io.cwd, values.checkpoint) : undefined;
    let checkpoint;
    try {
      checkpoint = checkpointPath !== undefined ? readWatchCheckpoint(checkpointPath) : undefined;
    } catch (error) {
      if (error instanceof CheckpointError) throw new CliError(error.message);
      throw error;
    }
    const sink = sinkOf(values, io);
    const log = (message: string) => io.stderr(`strata watch: ${message}\n`);
    const watcher = new SessionFolderWatcher({
      folders,
      format,
      sink,
      log,
      ...(checkpointPath !== undefined ? { checkpointPath } : {}),
      ...(checkpoint !== undefined ? { checkpoint } : {}),
      ...(flushAfterMs !== undefined ? { flushAfterMs } : {}),
    });
    const stopped = stopSignal();
    try {
      await watcher.start();
      log(`watching ${folders.join(', ')} into ${sink.description} (${watcher.fileCount} files)`);
      const signal = await stopped;
      log(`${signal}: stopping`);
      await watcher.stop();
      if (checkpointPath !== undefined) log(`checkpoint written to ${checkpointPath}`);
    } finally {
      await sink.close();
    }
    return 0;
  },
};
