// `strata export`: a stored session as a pi v3 JSONL file on stdout; with `--format original` a
// session imported from a Claude Code or Codex transcript as that file, byte for byte; with
// `--events` (or `--format events`) its raw event log (one JSON line per event: data, metadata
// with the chained hashes, type, id, revision, position, time) for `strata verify --file`.
import { streamEventLines } from '@strata/integrity';
import { SessionNotFoundError, exportOriginalFile, exportSession } from '@strata/session-files';
import { OriginalFileUnavailableError, sessionStreamName } from '@strata/session';
import { CliError, type CommandImplementation } from '../cli-io';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { parseCommandLine } from '../shared/options';

const formats = ['pi', 'original', 'events'] as const;
type ExportFormat = (typeof formats)[number];

export const exportCommand: CommandImplementation = {
  name: 'export',
  usage:
    `strata export <sessionId> ${storeOptionUsage} [--format pi|original|events] [--events]\n  ${storeOptionHelp}\n` +
    '  --format: pi (default: a pi v3 session file), original or events, as below\n' +
    '  --format original: the Claude Code or Codex file the session was imported from, byte for byte\n' +
    '  --events (same as --format events): the raw event log as JSON Lines (what `strata verify --file` checks)\n' +
    'examples:\n' +
    '  strata export 0190a8f0-7c1d-7000-8000-000000000001 > session.jsonl\n' +
    '  strata export 0190a8f0-7c1d-7000-8000-000000000001 --events > events.jsonl && strata verify --file events.jsonl',
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      {
        store: { type: 'string' },
        format: { type: 'string' },
        events: { type: 'boolean', default: false },
      },
      true,
    );
    if (values.format !== undefined && !(formats as readonly string[]).includes(values.format)) {
      throw new CliError(`--format must be pi, original or events, not '${values.format}'`, 2);
    }
    if (values.events && values.format !== undefined && values.format !== 'events') {
      throw new CliError(`--events and --format ${values.format} ask for two different exports`, 2);
    }
    const format: ExportFormat = values.events
      ? 'events'
      : ((values.format as ExportFormat | undefined) ?? 'pi');
    const [sessionId, ...extra] = positionals;
    if (sessionId === undefined) throw new CliError('name the session to export', 2);
    if (extra.length > 0) throw new CliError(`export takes one session id, not ${positionals.length}`, 2);
    if (format === 'events') {
      await withEventStore(values.store, io, async (store) => {
        let lines = 0;
        for await (const line of streamEventLines(store, sessionStreamName(sessionId))) {
          io.stdout(line);
          lines += 1;
        }
        if (lines === 0) throw new SessionNotFoundError(sessionId);
      });
      return 0;
    }
    const text = await withEventStore(values.store, io, async (store) => {
      if (format === 'pi') return exportSession(store, sessionId);
      try {
        return (await exportOriginalFile(store, sessionId)).text;
      } catch (error) {
        if (error instanceof OriginalFileUnavailableError) throw new CliError(error.message);
        throw error;
      }
    });
    io.stdout(text);
    return 0;
  },
};
