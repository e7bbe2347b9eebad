// `strata context`: the context sent to the model at one leaf of a session, read from a pi
// session file (`--file`) or from the event store (`--session`). Both print the same report;
// a stored session also brings its pruning events and its persisted leaf.
import { loadSession } from '@strata/session-files';
import type { PrunedResult, SessionEntry } from '@strata/session';
import { loadContextTemplates } from '@strata/summarizer';
import { createTokenCounter } from '@strata/tokenizer';
import { CliError, type CommandImplementation, type CliIo } from '../cli-io';
import { buildContextReport, renderContextReport } from '../shared/context-report';
import { storeOptionHelp, storeOptionUsage, withEventStore } from '../shared/event-store-option';
import { parseCommandLine, tokenizerOption } from '../shared/options';
import { readSessionFile } from '../shared/session-file-source';

interface ContextSource {
  readonly entries: readonly SessionEntry[];
  /** Where the context is built when no --leaf is given (undefined: the last entry). */
  readonly defaultLeafId?: string | null;
  readonly prunedResults?: ReadonlyMap<string, PrunedResult>;
  /** How to name the source in messages. */
  readonly name: string;
}

async function storedSession(
  sessionId: string,
  storeUrl: string | undefined,
  io: CliIo,
): Promise<ContextSource> {
  const session = await withEventStore(storeUrl, io, (store) => loadSession(store, sessionId));
  return {
    entries: session.entries,
    defaultLeafId: session.leafId,
    prunedResults: session.prunedResults,
    name: `session ${sessionId}`,
  };
}

export const contextCommand: CommandImplementation = {
  name: 'context',
  usage:
    `strata context (--file <session.jsonl> | --session <sessionId> ${storeOptionUsage}) [--leaf <entryId>] [--tokenizer o200k|chars4] [--json]\n` +
    '  --file: a pi session file to read (no store needed)\n' +
    '  --session: a session of the event store to read, with its pruned tool results and its current leaf\n' +
    `  ${storeOptionHelp} (with --session only)\n` +
    '  --leaf: the entry whose context is shown (default: the current leaf, or the last entry of a file)\n' +
    '  --tokenizer: how tokens are counted: o200k (default, exact for OpenAI models) or chars4 (4 characters a token)\n' +
    '  --json: print the messages, the provider-ready messages, models and counts as one JSON object\n' +
    'examples:\n' +
    '  strata context --file ~/.pi/agent/sessions/project/session.jsonl\n' +
    '  strata context --session 0190a8f0-7c1d-7000-8000-000000000001 --leaf e0042 --json',
  async run(argv, io) {
    const { values } = parseCommandLine(argv, {
      file: { type: 'string' },
      session: { type: 'string' },
      store: { type: 'string' },
      leaf: { type: 'string' },
      tokenizer: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    if ((values.file === undefined) === (values.session === undefined)) {
      throw new CliError(
        values.file === undefined ? '--file or --session is required' : 'give --file or --session, not both',
        2,
      );
    }
    if (values.store !== undefined && values.session === undefined) {
      throw new CliError('--store applies to --session only', 2);
    }
    const counter = createTokenCounter(tokenizerOption(values.tokenizer));
    const source: ContextSource =
      values.session !== undefined
        ? await storedSession(values.session, values.store, io)
        : { entries: readSessionFile(values.file!).entries, name: values.file! };
    if (values.leaf !== undefined && !source.entries.some((entry) => entry.id === values.leaf)) {
      throw new CliError(`entry '${values.leaf}' is not in ${source.name}`);
    }
    const leafId = values.leaf ?? source.defaultLeafId;
    const report = buildContextReport({
      entries: source.entries,
      ...(leafId !== undefined ? { leafId } : {}),
      ...(source.prunedResults ? { prunedResults: source.prunedResults } : {}),
      counter,
      templates: loadContextTemplates(),
    });
    io.stdout(values.json ? `${JSON.stringify(report)}\n` : renderContextReport(report, counter));
    return 0;
  },
};
