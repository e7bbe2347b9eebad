// `strata anchors export`: the store's signed log as JSON Lines on stdout, oldest first — anchors,
// checkpoints and erasures (decision 0018) — for an auditor to keep outside the store (or to
// have timestamped); `--after` keeps the entries logged after a position of the log (each line's
// `position`: nothing is missed whatever the clocks did), `--since` those signed at or after a
// time. Keeping only the newest checkpoint line is enough to check the whole log before it later.
// Read page by page, so a long log is never held in memory.
import { AnchorLogUnavailableError, anchorLine, anchorLogOf, logEntryLine } from '@strata/integrity';
import { CliError, type CommandImplementation } from '../cli-io';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { parseCommandLine } from '../shared/options';

function afterOption(value: string | undefined): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^(0|[1-9][0-9]{0,18})$/.test(value)) {
    throw new CliError(
      `--after must be a position of the anchor log (a whole number such as 1200), not '${value}'`,
      2,
    );
  }
  return BigInt(value);
}

function sinceOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time))
    throw new CliError(`--since must be a date-time (2026-01-31T12:00:00Z), not '${value}'`, 2);
  return new Date(time).toISOString();
}

export const anchorsCommand: CommandImplementation = {
  name: 'anchors',
  usage:
    `strata anchors export ${storeOptionUsage} [--after <position>] [--since <time>]\n  ${storeOptionHelp}\n` +
    '  The signed log: anchors, checkpoints of the whole store and signed erasures, one JSON line each\n' +
    '  --after: only entries logged after this position of the log (the `position` of the\n' +
    '           last line exported before): everything since, whatever the clocks said\n' +
    '  --since: only entries signed at or after this date-time (2026-01-31T12:00:00Z), as the\n' +
    "           signing engine's clock said\n" +
    'examples:\n' +
    '  strata anchors export > anchors.jsonl\n' +
    '  strata anchors export --after "$(tail -n 1 anchors.jsonl | jq -r .position)" >> anchors.jsonl\n' +
    '  strata anchors export --since 2026-12-01T00:00:00Z --store sqlite:./data/strata.db',
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      { store: { type: 'string' }, since: { type: 'string' }, after: { type: 'string' } },
      true,
    );
    const [action, ...extra] = positionals;
    if (action !== 'export' || extra.length > 0) throw new CliError("the one action is 'anchors export'", 2);
    const since = sinceOption(values.since);
    const after = afterOption(values.after);
    await withEventStore(values.store, io, async (store) => {
      let log;
      try {
        log = anchorLogOf(store);
      } catch (error) {
        if (error instanceof AnchorLogUnavailableError) throw new CliError(error.message);
        throw error;
      }
      const sinceTime = since === undefined ? undefined : Date.parse(since);
      for await (const item of log.entries(after ?? 0n)) {
        if (item.source === 'unreadable') {
          io.stderr(
            `anchors: position ${item.position} of the log holds no entry that can be read (${item.reason}); left out\n`,
          );
          continue;
        }
        if (sinceTime !== undefined && Date.parse(item.entry.time) < sinceTime) continue;
        io.stdout(item.source === 'chained' ? logEntryLine(item.entry) : anchorLine(item.entry));
      }
    });
    return 0;
  },
};
