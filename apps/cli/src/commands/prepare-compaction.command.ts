// `strata prepare-compaction`: what the next compaction of a session file would summarise and keep.
import {
  buildSessionTree,
  computeFileLists,
  DEFAULT_COMPACTION_SETTINGS,
  pathToEntry,
  prepareCompaction,
  type CompactionPreparation,
} from '@strata/session';
import { createTokenCounter } from '@strata/tokenizer';
import { CliError, type CommandImplementation } from '../cli-io';
import { parseCommandLine, positiveIntegerOption, tokenizerOption } from '../shared/options';
import { readSessionFile } from '../shared/session-file-source';

export function preparationReport(preparation: CompactionPreparation): Record<string, unknown> {
  if (preparation.kind === 'skip') return { skipped: true, reason: preparation.reason };
  const fileLists = computeFileLists(preparation.fileOperations);
  return {
    skipped: false,
    firstKeptEntryId: preparation.firstKeptEntryId,
    isSplitTurn: preparation.isSplitTurn,
    tokensBefore: preparation.tokensBefore,
    tokensBeforeSource: preparation.tokensBeforeSource,
    keepRecentTokens: preparation.keepRecentTokensUsed,
    messagesToSummarize: preparation.messagesToSummarize.length,
    turnPrefixMessages: preparation.turnPrefixMessages.length,
    keptMessages: preparation.recentMessages.length,
    hasPreviousSummary: preparation.previousSummary !== undefined,
    readFiles: fileLists.readFiles,
    modifiedFiles: fileLists.modifiedFiles,
  };
}

export const prepareCompactionCommand: CommandImplementation = {
  name: 'prepare-compaction',
  usage:
    'strata prepare-compaction --file <session.jsonl> [--leaf <entryId>] [--keep-recent-tokens N] [--force] [--tokenizer o200k|chars4] [--json]\n' +
    '  --file: the pi session file (required)\n' +
    '  --leaf: the entry the compaction would start from (default: the last entry)\n' +
    `  --keep-recent-tokens: how many tokens of recent context are kept as they are (default ${DEFAULT_COMPACTION_SETTINGS.keepRecentTokens})\n` +
    '  --force: prepare a compaction even when the context fits in the keep budget, keeping its last turn (as `strata compact --force`)\n' +
    '  --tokenizer: how tokens are counted: o200k (default) or chars4 (4 characters a token)\n' +
    '  --json: print the preparation as one JSON object instead of key: value lines\n' +
    'examples:\n' +
    '  strata prepare-compaction --file session.jsonl\n' +
    '  strata prepare-compaction --file session.jsonl --keep-recent-tokens 8000 --json\n' +
    '  strata prepare-compaction --file session.jsonl --force',
  run(argv, io) {
    const { values } = parseCommandLine(argv, {
      file: { type: 'string' },
      leaf: { type: 'string' },
      'keep-recent-tokens': { type: 'string' },
      force: { type: 'boolean', default: false },
      tokenizer: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    if (values.file === undefined) throw new CliError('--file is required', 2);
    const keepRecentTokens =
      positiveIntegerOption('keep-recent-tokens', values['keep-recent-tokens']) ??
      DEFAULT_COMPACTION_SETTINGS.keepRecentTokens;
    const counter = createTokenCounter(tokenizerOption(values.tokenizer));
    const session = readSessionFile(values.file);
    const tree = buildSessionTree(session.entries);
    const leafId = values.leaf ?? tree.lastEntryId;
    if (leafId === null) throw new CliError(`${values.file} has no entries`);
    if (!tree.byId.has(leafId)) throw new CliError(`entry '${leafId}' is not in ${values.file}`);
    const preparation = prepareCompaction(
      pathToEntry(tree.byId, leafId),
      { keepRecentTokens },
      counter,
      values.force ? { force: true } : {},
    );
    const report = { leafId, tokenizer: counter.name, ...preparationReport(preparation) };
    if (values.json) {
      io.stdout(`${JSON.stringify(report)}\n`);
    } else {
      io.stdout(
        `${Object.entries(report)
          .map(
            ([key, value]) =>
              `${key}: ${Array.isArray(value) ? (value.length ? value.join(', ') : '(none)') : String(value)}`,
          )
          .join('\n')}\n`,
      );
    }
    return Promise.resolve(0);
  },
};
