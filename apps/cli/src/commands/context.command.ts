// `strata context`: the context sent to the model at one leaf of a session file.
import { loadContextTemplates } from '@strata/summarizer';
import { createTokenCounter } from '@strata/tokenizer';
import { CliError, type CliCommand } from '../cli-io';
import { buildContextReport, renderContextReport } from '../shared/context-report';
import { parseCommandLine, tokenizerOption } from '../shared/options';
import { readSessionFile } from '../shared/session-file-source';

export const contextCommand: CliCommand = {
  name: 'context',
  summary: 'print the context sent to the model at a leaf of a session',
  usage: 'strata context --file <session.jsonl> [--leaf <entryId>] [--tokenizer o200k|chars4] [--json]',
  run(argv, io) {
    const { values } = parseCommandLine(argv, {
      file: { type: 'string' },
      leaf: { type: 'string' },
      tokenizer: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    if (values.file === undefined) throw new CliError('--file is required', 2);
    const counter = createTokenCounter(tokenizerOption(values.tokenizer));
    const session = readSessionFile(values.file);
    if (values.leaf !== undefined && !session.entries.some((entry) => entry.id === values.leaf)) {
      throw new CliError(`entry '${values.leaf}' is not in ${values.file}`);
    }
    const report = buildContextReport({
      entries: session.entries,
      ...(values.leaf !== undefined ? { leafId: values.leaf } : {}),
      counter,
      templates: loadContextTemplates(),
    });
    io.stdout(values.json ? `${JSON.stringify(report)}\n` : renderContextReport(report, counter));
    return Promise.resolve(0);
  },
};
