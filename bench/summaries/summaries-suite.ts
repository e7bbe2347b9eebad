// Suite `summaries` (issue 13, item 13): what survives 1, 2 and 3 chained compactions of the real
// pi session `before-compaction.jsonl` by the offline extractive summariser — every modified
// file path, the last user request word for word, the latest error (survival.ts defines them) —
// next to the file's own two compactions, written by pi with claude-opus-4-5, measured the same
// way. The chain is made as the engine makes it (libs/testing chained-compactions.ts): the
// engine's default keepRecentTokens and reserveTokens, the repository's prompts, chars/4 counts.
// Nothing is timed: the figures are facts kept, counted.
import { type CompactionEntry, parseSessionFile } from '@strata/session';
import { OFFLINE_SUMMARIZER_NAME, offlineSummary } from '@strata/summarizer';
import { chainedCompactions, piFixtureExists, readPiFixture } from '@strata/testing';
import type { BenchSuite, FigureGroup, FigureRow, SummaryTable } from '../harness';
import { type MeasuredCompaction, type SurvivalFigures, survivalFigures } from './survival';

const FIXTURE = 'before-compaction.jsonl';
const PI_SUMMARISER = "pi's own (claude-opus-4-5)";

function yesNo(kept: boolean): string {
  return kept ? 'yes' : 'no';
}

function factsKept(figures: SurvivalFigures): number {
  return (
    Number(figures.modifiedPathsInSummary === figures.modifiedPaths) +
    Number(figures.lastRequestKept) +
    Number(figures.latestErrorKept)
  );
}

function tableRow(summariser: string, figures: SurvivalFigures): string[] {
  return [
    summariser,
    String(figures.compaction),
    `${figures.modifiedPathsInSummary} / ${figures.modifiedPaths}`,
    `${figures.modifiedPathsInText} / ${figures.modifiedPaths}`,
    yesNo(figures.lastRequestKept),
    yesNo(figures.latestErrorKept),
    String(figures.blockedItems),
    String(figures.errorLines),
    figures.summaryCharacters.toLocaleString('en-GB'),
  ];
}

function figureRow(summariser: string, role: FigureRow['role'], figures: SurvivalFigures): FigureRow {
  return {
    label: summariser,
    role,
    value: factsKept(figures),
    display: `${factsKept(figures)} of 3`,
  };
}

export const summariesSuite: BenchSuite = {
  name: 'summaries',
  title: 'What survives chained compactions (offline summariser)',
  run(context) {
    if (!piFixtureExists(FIXTURE)) {
      return Promise.resolve({ cases: [], notices: [`pi fixture ${FIXTURE} is missing`], facts: {} });
    }
    context.progress.step('summaries', `three chained offline compactions of ${FIXTURE}`);
    const { entries } = parseSessionFile(readPiFixture(FIXTURE), { mode: 'strict' });
    const chain = chainedCompactions(entries, offlineSummary);
    const offline = survivalFigures(
      chain.map(({ entry, generated }) => ({
        firstKeptEntryId: entry.firstKeptEntryId,
        summary: entry.summary,
        generated,
      })),
      entries,
    );
    const own: MeasuredCompaction[] = entries
      .filter((entry): entry is CompactionEntry => entry.type === 'compaction')
      .map((entry) => ({
        firstKeptEntryId: entry.firstKeptEntryId,
        summary: entry.summary,
        generated: entry.summary,
      }));
    const pi = survivalFigures(own, entries);

    const table: SummaryTable = {
      title: `Facts kept by chained compactions of ${FIXTURE}`,
      columns: [
        'summariser',
        'compactions',
        'modified paths in the summary',
        'in the summariser text',
        'last request word for word',
        'latest error',
        'Blocked items',
        'Errors seen lines',
        'summary characters',
      ],
      numericColumns: [1, 6, 7, 8],
      rows: [
        ...pi.map((figures) => tableRow(PI_SUMMARISER, figures)),
        ...offline.map((figures) => tableRow(OFFLINE_SUMMARIZER_NAME, figures)),
      ],
    };
    const keptGroups: FigureGroup[] = offline.map((figures) => ({
      title: `Facts kept after ${figures.compaction} compaction${figures.compaction === 1 ? '' : 's'} (all modified paths, the last request, the latest error)`,
      unit: 'facts of 3',
      lowerIsBetter: false,
      rows: [
        ...pi
          .filter((own) => own.compaction === figures.compaction)
          .map((own) => figureRow(PI_SUMMARISER, 'baseline', own)),
        figureRow(OFFLINE_SUMMARIZER_NAME, 'subject', figures),
      ],
      inSummary: false,
    }));
    return Promise.resolve({
      cases: [],
      notices: [],
      facts: {
        fixture: FIXTURE,
        compactionsAt: chain.map(({ preparation }) => ({
          firstKeptEntryIndex: preparation.firstKeptEntryIndex,
          summarisedMessages: preparation.messagesToSummarize.length,
          turnPrefixMessages: preparation.turnPrefixMessages.length,
        })),
        offline,
        pi,
      },
      figures: keptGroups,
      tables: [table],
    });
  },
};
