// `strata export`: a stored session as a pi v3 JSONL file on stdout.
import { exportSession } from '@strata/event-store';
import { CliError, type CliCommand } from '../cli-io';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { parseCommandLine } from '../shared/options';

export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'print a stored session as a pi v3 JSONL file',
  usage: `strata export <sessionId> ${storeOptionUsage}\n  ${storeOptionHelp}`,
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(argv, { store: { type: 'string' } }, true);
    const [sessionId, ...extra] = positionals;
    if (sessionId === undefined) throw new CliError('name the session to export', 2);
    if (extra.length > 0) throw new CliError(`export takes one session id, not ${positionals.length}`, 2);
    const text = await withEventStore(values.store, io, (store) => exportSession(store, sessionId));
    io.stdout(text);
    return 0;
  },
};
