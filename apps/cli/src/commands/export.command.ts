// `strata export`: a stored session as a pi v3 JSONL file on stdout, or (`--format original`) a
// session imported from a Claude Code or Codex transcript as that file, byte for byte.
import { exportOriginalFile, exportSession } from '@strata/event-store';
import { OriginalFileUnavailableError } from '@strata/session';
import { CliError, type CliCommand } from '../cli-io';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { parseCommandLine } from '../shared/options';

export const exportCommand: CliCommand = {
  name: 'export',
  summary: 'print a stored session as a pi v3 JSONL file, or as the transcript it was imported from',
  usage:
    `strata export <sessionId> ${storeOptionUsage} [--format pi|original]\n  ${storeOptionHelp}\n` +
    '  --format original: the Claude Code or Codex file the session was imported from, byte for byte',
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      { store: { type: 'string' }, format: { type: 'string', default: 'pi' } },
      true,
    );
    if (values.format !== 'pi' && values.format !== 'original') {
      throw new CliError(`--format must be pi or original, not '${values.format}'`, 2);
    }
    const [sessionId, ...extra] = positionals;
    if (sessionId === undefined) throw new CliError('name the session to export', 2);
    if (extra.length > 0) throw new CliError(`export takes one session id, not ${positionals.length}`, 2);
    const original = values.format === 'original';
    const text = await withEventStore(values.store, io, async (store) => {
      if (!original) return exportSession(store, sessionId);
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
