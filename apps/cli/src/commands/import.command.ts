// `strata import`: pi session files (any version), Claude Code transcripts and Codex rollouts
// into the event store, one stream per session, atomically per file and idempotently. Every file
// is read and checked before anything is written, so a bad file means nothing is imported.
// Session ids go to stdout, one per line (with `--json`, one JSON object per file: the file, the
// session, the outcome and the counts); progress (each file read and checked, then each written)
// and skipped lines go to stderr. The head of each session imported (or found unchanged)
// is signed as an anchor in the store's anchor log, unless STRATA_ANCHORS=off.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SqliteEventStore, StreamErasedError } from '@strata/event-store';
import { anchorLogIfAny, anchorStreamHead } from '@strata/integrity';
import {
  prepareSessionImport,
  SessionImportError,
  writeSessionImport,
  type ImportProgress,
  type PreparedSessionImport,
  type SessionImportReport,
} from '@strata/session-files';
import { SessionImportConflictError, type SessionFileFormat } from '@strata/session';
import { sessionErasure } from '@strata/engine';
import { CliError, type CommandImplementation, type CliIo } from '../cli-io';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { jsonLine } from '../shared/json-output';
import { parseCommandLine, sessionFileFormatOption } from '../shared/options';
import { anchoringOn, cliLogWriting, signingKeyOf } from '../shared/anchor-options';

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

function prepare(
  path: string,
  io: CliIo,
  lenient: boolean,
  format: SessionFileFormat | 'auto',
): PreparedSessionImport {
  try {
    return prepareSessionImport(readBytes(path, io.cwd), { lenient, format });
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

function describeReport(report: SessionImportReport): string {
  switch (report.outcome) {
    case 'imported':
      return `imported as ${report.streamId} (${report.eventsWritten} events)`;
    case 'appended':
      return `appended: ${report.appended} new entries to ${report.streamId} (${report.entryCount} in all)`;
    case 'unchanged':
      return `unchanged (${report.streamId} already holds this session)`;
    default: {
      const unhandled: never = report.outcome;
      throw new Error(`unhandled import outcome ${String(unhandled)}`);
    }
  }
}

export const importCommand: CommandImplementation = {
  name: 'import',
  usage:
    `strata import <file.jsonl>... ${storeOptionUsage} [--lenient] [--allow-erased] [--format pi|claude-code|codex|auto] [--json]\n` +
    `  ${storeOptionHelp}\n` +
    "  --format: the files' format; auto (the default) tells it from the lines. Claude Code and Codex\n" +
    '    files are converted into entries that keep every original line (strata export --format original)\n' +
    '  --lenient: skip (and report) bad lines of pi files instead of refusing the file\n' +
    '  --allow-erased: import a session that was erased (`strata erase`) again, as a new stream\n' +
    '    (its erasure record stays; impossible on EventStoreDB, whose tombstone is final)\n' +
    '  --json: print one JSON object per file (file, sessionId, streamId, outcome, counts) instead of the ids\n' +
    '  A file already imported that grew since (the stored entries are its first ones) gets its new\n' +
    '  entries appended; a file that differs from its stored session exits 1 naming the first line.\n' +
    'examples:\n' +
    '  strata import ~/.pi/agent/sessions/*/*.jsonl\n' +
    '  strata import ~/.claude/projects/my-app/*.jsonl --store sqlite:./team.db --json',
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      {
        store: { type: 'string' },
        lenient: { type: 'boolean', default: false },
        'allow-erased': { type: 'boolean', default: false },
        format: { type: 'string', default: 'auto' },
        json: { type: 'boolean', default: false },
      },
      true,
    );
    if (positionals.length === 0) throw new CliError('name at least one session file', 2);
    const format = sessionFileFormatOption(values.format);
    const key = anchoringOn(io) ? signingKeyOf(io) : undefined;
    await withEventStore(values.store, io, async (store) => {
      // the store's writer thread starts while the files are read and checked
      if (store instanceof SqliteEventStore) store.writer.warmUp();
      const prepared = positionals.map((path, index) => {
        const session = prepare(path, io, values.lenient, format);
        if (positionals.length > 1)
          io.stderr(`import: ${index + 1} of ${positionals.length} files read and checked (${path})\n`);
        return { path, session };
      });
      for (const { path, session } of prepared) {
        if (session.format !== undefined && session.format !== 'pi') {
          io.stderr(`${path}: read as a ${session.format} transcript (${session.entries.length} entries)\n`);
        }
        for (const problem of session.skipped) {
          io.stderr(`${path}:${problem.line}: skipped: ${problem.reason} (${problem.code})\n`);
        }
        for (const problem of session.repaired) {
          io.stderr(`${path}:${problem.line}: repaired: ${problem.reason} (${problem.code})\n`);
        }
      }
      const anchors = key !== undefined ? anchorLogIfAny(store) : undefined;
      for (const { path, session } of prepared) {
        try {
          const report = await writeSessionImport(store, session, {
            actor: IMPORT_ACTOR,
            onProgress: progressPrinter(path, io),
            reviveErased: values['allow-erased'],
          });
          io.stderr(`${path}: ${describeReport(report)}\n`);
          if (key !== undefined && anchors !== undefined) {
            await anchorStreamHead(store, report.streamId, key, anchors);
          }
          io.stdout(values.json ? jsonLine({ file: path, ...report }) : `${report.sessionId}\n`);
        } catch (error) {
          if (error instanceof SessionImportConflictError) throw new CliError(`${path}: ${error.message}`);
          if (error instanceof StreamErasedError) {
            const record = await sessionErasure(store, session.header.id);
            const erased =
              record !== undefined ? ` at ${record.erasedAt} by ${record.actor}: ${record.reason}` : '';
            throw new CliError(
              values['allow-erased']
                ? `${path}: session ${session.header.id} was erased${erased}, and this store cannot write an erased stream again`
                : `${path}: session ${session.header.id} was erased${erased}; --allow-erased imports it again`,
            );
          }
          throw error;
        }
      }
      await cliLogWriting(io, store).checkpoint();
    });
    return 0;
  },
};
