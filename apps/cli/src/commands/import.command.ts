// `strata import`: pi session files (any version) into the event store, one stream per session,
// atomically per file and idempotently. Every file is read and checked before anything is
// written, so a bad file means nothing is imported. Session ids go to stdout, one per line;
// progress and skipped lines go to stderr. The head of each session imported (or found unchanged)
// is signed as an anchor in the store's anchor log, unless STRATA_ANCHORS=off.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  anchorLogIfAny,
  anchorStreamHead,
  prepareSessionImport,
  SessionImportError,
  writeSessionImport,
  type ImportProgress,
  type PreparedSessionImport,
} from '@strata/event-store';
import { SessionImportConflictError } from '@strata/session';
import { CliError, type CliCommand, type CliIo } from '../cli-io';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { parseCommandLine } from '../shared/options';
import { anchoringOn, signingKeyOf } from '../shared/anchor-options';

/** Who imports, as written into each event's metadata. */
const IMPORT_ACTOR = 'strata-cli:import';

/** The file's bytes: the parser checks that each line is UTF-8 instead of replacing bad bytes. */
function readBytes(path: string, cwd: string): Buffer {
  try {
    return readFileSync(resolve(cwd, path));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error);
    throw new CliError(`cannot read ${path}: ${reason}`);
  }
}

function prepare(path: string, io: CliIo, lenient: boolean): PreparedSessionImport {
  try {
    return prepareSessionImport(readBytes(path, io.cwd), { lenient });
  } catch (error) {
    if (error instanceof SessionImportError) {
      throw new CliError(`${path}:${error.line}: ${error.reason} (${error.code}); nothing was imported`);
    }
    throw error;
  }
}

function progressPrinter(path: string, io: CliIo): (progress: ImportProgress) => void {
  return (progress) => {
    switch (progress.kind) {
      case 'parsed':
        io.stderr(`${path}: session ${progress.sessionId}, ${progress.entryCount} entries\n`);
        return;
      case 'prepared':
        io.stderr(`${path}: ${progress.eventCount} events prepared\n`);
        return;
      default: {
        const unhandled: never = progress;
        throw new Error(`unhandled import progress ${JSON.stringify(unhandled)}`);
      }
    }
  };
}

export const importCommand: CliCommand = {
  name: 'import',
  summary: 'import pi session files into the event store (prints the session ids)',
  usage: `strata import <file.jsonl>... ${storeOptionUsage} [--lenient]\n  ${storeOptionHelp}`,
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      { store: { type: 'string' }, lenient: { type: 'boolean', default: false } },
      true,
    );
    if (positionals.length === 0) throw new CliError('name at least one session file', 2);
    const prepared = positionals.map((path) => ({ path, session: prepare(path, io, values.lenient) }));
    for (const { path, session } of prepared) {
      for (const problem of session.skipped) {
        io.stderr(`${path}:${problem.line}: skipped: ${problem.reason} (${problem.code})\n`);
      }
      for (const problem of session.repaired) {
        io.stderr(`${path}:${problem.line}: repaired: ${problem.reason} (${problem.code})\n`);
      }
    }
    const key = anchoringOn(io) ? signingKeyOf(io) : undefined;
    await withEventStore(values.store, io, async (store) => {
      const anchors = key !== undefined ? anchorLogIfAny(store) : undefined;
      for (const { path, session } of prepared) {
        try {
          const report = await writeSessionImport(store, session, {
            actor: IMPORT_ACTOR,
            onProgress: progressPrinter(path, io),
          });
          io.stderr(
            report.outcome === 'imported'
              ? `${path}: imported as ${report.streamId} (${report.eventsWritten} events)\n`
              : `${path}: unchanged (${report.streamId} already holds this session)\n`,
          );
          if (key !== undefined && anchors !== undefined) {
            await anchorStreamHead(store, report.streamId, key, anchors);
          }
          io.stdout(`${report.sessionId}\n`);
        } catch (error) {
          if (error instanceof SessionImportConflictError) throw new CliError(`${path}: ${error.message}`);
          throw error;
        }
      }
    });
    return 0;
  },
};
