// `strata export`: a stored session as a pi v3 JSONL file on stdout, or with `--events` its raw
// event log (one JSON line per event: data, metadata with the chained hashes, type, id, revision,
// position, time) for `strata verify --file`.
import { SessionNotFoundError, exportSession, streamEventLines } from '@strata/event-store';
import { sessionStreamName } from '@strata/session';
import { CliError, type CliCommand } from '../cli-io';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { parseCommandLine } from '../shared/options';

export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'print a stored session as a pi v3 JSONL file (or its raw event log with --events)',
  usage: `strata export <sessionId> ${storeOptionUsage} [--events]\n  ${storeOptionHelp}\n  --events: the raw event log as JSON Lines (what \`strata verify --file\` checks)`,
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      { store: { type: 'string' }, events: { type: 'boolean', default: false } },
      true,
    );
    const [sessionId, ...extra] = positionals;
    if (sessionId === undefined) throw new CliError('name the session to export', 2);
    if (extra.length > 0) throw new CliError(`export takes one session id, not ${positionals.length}`, 2);
    if (values.events) {
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
    const text = await withEventStore(values.store, io, (store) => exportSession(store, sessionId));
    io.stdout(text);
    return 0;
  },
};
