// `strata compact <sessionId>`: compacts a stored session now, through the engine's
// CompactSession command, and prints the compaction entry it wrote.
import { CompactSessionCommand, type CompactionResult } from '@strata/engine';
import { CliError, type CommandImplementation, type CliIo } from '../cli-io';
import { withEngine } from '../shared/engine-context';
import { storeOptionHelp } from '../shared/event-store-option';
import { actorOptionHelp, cliActor } from '../shared/cli-actor';
import { parseCommandLine } from '../shared/options';

function printResult(io: CliIo, result: CompactionResult, json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify(result)}\n`);
    return;
  }
  switch (result.outcome) {
    case 'completed':
      io.stdout(
        `Compacted session ${result.sessionId}: entry ${result.entry.id}, first kept ${result.entry.firstKeptEntryId}, ` +
          `${result.tokensBefore} tokens before, about ${result.estimatedTokensAfter} after.\n\n${result.entry.summary}\n`,
      );
      return;
    case 'skipped':
      io.stdout(`Nothing compacted (${result.reason}).\n`);
      return;
    case 'cancelled':
      io.stdout(`Compaction cancelled (${result.reason}).\n`);
      return;
    case 'failed':
      io.stdout(`Compaction failed: ${result.error.message}\n`);
      return;
    default: {
      const unhandled: never = result;
      throw new Error(`unhandled compaction result ${JSON.stringify(unhandled)}`);
    }
  }
}

export const compactCommand: CommandImplementation = {
  name: 'compact',
  usage:
    'strata compact <sessionId> [--instructions "…"] [--force] [--store <url>] [--settings <file.json>] [--actor <name>] [--json]\n' +
    "  --instructions: what the summary should focus on, added to the summariser's prompt\n" +
    '  --force: compact even when the context is under the budget that keeps recent tokens (its last turn is kept)\n' +
    `  ${storeOptionHelp}\n` +
    `  ${actorOptionHelp}\n` +
    '  --settings: the engine settings file (summariser, compaction budgets); STRATA_SETTINGS otherwise\n' +
    '  --json: print the whole result (outcome, entry, token counts) as one JSON object\n' +
    '  Exits 0 when compacted or when there was nothing to compact, 1 when cancelled or failed.\n' +
    'examples:\n' +
    '  strata compact 0190a8f0-7c1d-7000-8000-000000000001\n' +
    '  strata compact 0190a8f0-7c1d-7000-8000-000000000001 --instructions "Keep the API decisions" --force --json',
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      {
        instructions: { type: 'string' },
        force: { type: 'boolean', default: false },
        store: { type: 'string' },
        settings: { type: 'string' },
        actor: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      true,
    );
    const [sessionId, ...extra] = positionals;
    if (sessionId === undefined || extra.length > 0) throw new CliError('expected exactly one session id', 2);
    const result = await withEngine(
      io,
      {
        ...(values.store !== undefined ? { storeUrl: values.store } : {}),
        ...(values.settings !== undefined ? { settingsFile: values.settings } : {}),
      },
      (commands) =>
        commands.execute(
          new CompactSessionCommand(
            sessionId,
            {
              ...(values.instructions !== undefined ? { customInstructions: values.instructions } : {}),
              ...(values.force ? { force: true } : {}),
            },
            { actor: cliActor(values.actor) },
          ),
        ),
    );
    printResult(io, result, values.json);
    return result.outcome === 'completed' || result.outcome === 'skipped' ? 0 : 1;
  },
};
