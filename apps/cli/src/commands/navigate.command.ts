// `strata navigate <sessionId> <targetId>`: moves a stored session's leaf through the engine's
// NavigateSession command, optionally summarising the branch left behind, and prints the result.
import { NavigateSessionCommand, type NavigationResult } from '@strata/engine';
import { SessionDomainError } from '@strata/session';
import { CliError, type CommandImplementation, type CliIo } from '../cli-io';
import { withEngine } from '../shared/engine-context';
import { storeOptionHelp } from '../shared/event-store-option';
import { actorOptionHelp, cliActor } from '../shared/cli-actor';
import { parseCommandLine } from '../shared/options';

function printResult(io: CliIo, result: NavigationResult, json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify(result)}\n`);
    return;
  }
  const from = result.oldLeafId ?? '(root)';
  switch (result.outcome) {
    case 'navigated': {
      let text = `Leaf moved from ${from} to ${result.leafId ?? '(root)'}.\n`;
      if (result.summaryDeclined === 'disabled') {
        text += 'No branch summary: branch summaries are disabled (branchSummary.enabled).\n';
      }
      if (result.summary)
        text += `\nBranch summary ${result.summary.entry.id}:\n${result.summary.entry.summary}\n`;
      if (result.editorText !== undefined) text += `\nText of the target message:\n${result.editorText}\n`;
      io.stdout(text);
      return;
    }
    case 'unchanged':
      io.stdout(`${result.targetId} is already the leaf.\n`);
      return;
    case 'cancelled':
      io.stdout(`Navigation cancelled (${result.reason}); the leaf stays at ${from}.\n`);
      return;
    case 'skipped':
      io.stdout(
        `Branch summary not attached (${result.reason}); the leaf is at ${result.leafId ?? '(root)'}.\n`,
      );
      return;
    case 'failed':
      io.stdout(`Branch summary failed: ${result.error.message}; the leaf stays at ${from}.\n`);
      return;
    default: {
      const unhandled: never = result;
      throw new Error(`unhandled navigation result ${JSON.stringify(unhandled)}`);
    }
  }
}

export const navigateCommand: CommandImplementation = {
  name: 'navigate',
  usage:
    'strata navigate <sessionId> <targetId> [--summarize] [--instructions "…"] [--store <url>] [--settings <file.json>] [--actor <name>] [--json]\n' +
    '  <targetId>: the entry that becomes the leaf\n' +
    '  --summarize: summarise the branch left behind and attach the summary at the new leaf\n' +
    '  --instructions: what that summary should focus on (with --summarize)\n' +
    `  ${storeOptionHelp}\n` +
    `  ${actorOptionHelp}\n` +
    '  --settings: the engine settings file (summariser, branch summaries); STRATA_SETTINGS otherwise\n' +
    '  --json: print the whole result (outcome, leaves, summary) as one JSON object\n' +
    '  Exits 0 when the leaf moved or was already there, 1 when cancelled, skipped or failed.\n' +
    'examples:\n' +
    '  strata navigate 0190a8f0-7c1d-7000-8000-000000000001 e0012\n' +
    '  strata navigate 0190a8f0-7c1d-7000-8000-000000000001 e0012 --summarize --json',
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(
      argv,
      {
        summarize: { type: 'boolean', default: false },
        instructions: { type: 'string' },
        store: { type: 'string' },
        settings: { type: 'string' },
        actor: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      true,
    );
    const [sessionId, targetId, ...extra] = positionals;
    if (sessionId === undefined || targetId === undefined || extra.length > 0) {
      throw new CliError('expected a session id and a target entry id', 2);
    }
    const result = await withEngine(
      io,
      {
        ...(values.store !== undefined ? { storeUrl: values.store } : {}),
        ...(values.settings !== undefined ? { settingsFile: values.settings } : {}),
      },
      async (commands) => {
        try {
          return await commands.execute(
            new NavigateSessionCommand(
              sessionId,
              targetId,
              {
                summarize: values.summarize,
                ...(values.instructions !== undefined ? { customInstructions: values.instructions } : {}),
              },
              { actor: cliActor(values.actor) },
            ),
          );
        } catch (error) {
          if (error instanceof SessionDomainError && error.code === 'not_found')
            throw new CliError(`entry '${targetId}' is not in session ${sessionId}`);
          throw error;
        }
      },
    );
    printResult(io, result, values.json);
    return result.outcome === 'navigated' || result.outcome === 'unchanged' ? 0 : 1;
  },
};
