// Cut points and preparation on the two real pi sessions (reference §4.4), read from
// ../shared/fixtures/pi. Figures are pinned for the chars/4 counter.
import { describeWithFixture, readPiFixture } from '@strata/testing';
import { parseSessionFile } from '../file-format';
import { charsPerFourCounter } from '../tokens/token-counter';
import { buildCompactionRequests } from './compaction-requests';
import { computeFileLists } from './file-operations';
import { latestCompactionIndex } from './context-usage';
import { findCutPoint } from './cut-point';
import { type CompactionReady, prepareCompaction } from './prepare-compaction';
import type { SummaryTemplates } from './summary-templates';

const counter = charsPerFourCounter;
const templates: SummaryTemplates = {
  summarizationSystem: 'SYSTEM',
  compactionSummary: 'FIRST',
  compactionUpdateSummary: 'UPDATE',
  compactionTurnPrefix: 'PREFIX',
  compactionShortSummary: 'SHORT',
  branchSummary: 'BRANCH',
  branchSummaryPreamble: 'PREAMBLE',
  fileOperations: '<{{tag}}>\n{{paths}}\n</{{tag}}>',
};
const contextTemplates = { compactionSummaryContext: '{{summary}}', branchSummaryContext: '{{summary}}' };

function ready(entries: Parameters<typeof prepareCompaction>[0]): CompactionReady {
  const preparation = prepareCompaction(entries, { keepRecentTokens: 20000 }, counter);
  if (preparation.kind !== 'ready') throw new Error(`unexpected skip: ${preparation.reason}`);
  return preparation;
}

describeWithFixture('large-session.jsonl', 'compaction of the large-session fixture', () => {
  const { entries } = parseSessionFile(readPiFixture('large-session.jsonl'), { mode: 'strict' });
  const preparation = ready(entries);

  it('finds the reference cut for a 20,000-token budget over the whole path', () => {
    expect(entries).toHaveLength(1018);
    expect(findCutPoint(entries, 0, entries.length, 20000, counter)).toEqual({
      firstKeptEntryIndex: 837,
      turnStartIndex: 834,
      isSplitTurn: true,
    });
  });

  it('prepares the reference compaction', () => {
    // The reference gives a calibrated budget of 14,018 from an independent re-implementation;
    // JavaScript string lengths give 14,038 here. Cut, split and message counts agree.
    expect(preparation).toMatchObject({
      tokensBefore: 177657,
      tokensBeforeSource: 'usage',
      keepRecentTokensUsed: 14038,
      firstKeptEntryIndex: 899,
      isSplitTurn: true,
      turnStartIndex: 896,
      windowStartIndex: 0,
    });
    expect(entries[899]).toMatchObject({ type: 'message', message: { role: 'assistant' } });
    expect(preparation.messagesToSummarize).toHaveLength(792);
    expect(preparation.turnPrefixMessages).toHaveLength(3);
    expect(preparation.recentMessages).toHaveLength(119);
  });

  it('tracks the files of the summarised tool calls', () => {
    const lists = computeFileLists(preparation.fileOperations);
    expect(lists.readFiles).toHaveLength(6);
    expect(lists.modifiedFiles).toHaveLength(21);
  });

  it('fits the history request into an input budget, leaving out the oldest messages', () => {
    const unbounded = buildCompactionRequests(preparation, templates, {
      reserveTokens: 16384,
      contextTemplates,
    });
    const bounded = buildCompactionRequests(preparation, templates, {
      reserveTokens: 16384,
      contextTemplates,
      inputBudget: { inputTokenBudget: 50000, counter },
    });
    const [history] = bounded.requests;
    expect(counter.countPieces([unbounded.requests[0]!.prompt], 0)).toBeGreaterThan(50000);
    expect(counter.countPieces([history!.systemPrompt, history!.prompt], 0)).toBeLessThanOrEqual(50000);
    expect(history!.prompt).toMatch(/^<conversation>\n\[\d+ earlier messages omitted\]\n\n/);
  });
});

describeWithFixture('before-compaction.jsonl', 'compaction of the before-compaction fixture', () => {
  const { entries } = parseSessionFile(readPiFixture('before-compaction.jsonl'), { mode: 'strict' });
  const preparation = ready(entries);

  it('gives the reference cut when run over the reference window [628, 1002) with its budget', () => {
    expect(latestCompactionIndex(entries)).toBe(627);
    expect(findCutPoint(entries, 628, entries.length, 14493, counter)).toEqual({
      firstKeptEntryIndex: 980,
      turnStartIndex: 957,
      isSplitTurn: true,
    });
  });

  it('starts the window at the previous first kept entry instead (reference defect 1)', () => {
    // Reference: boundary [628, 1002), keepRecent 14,493, cut 980, 324 / 23 / 21 messages. Our
    // window also holds the previous kept region [550, 627) and the estimate counts the previous
    // summary, so the usage ratio is smaller, the calibrated budget larger and the cut earlier.
    // tokensBefore is pi 0.73.1's figure: the last answer's usage (168,018) plus chars/4 of the
    // `find .` run after it (12,802).
    expect(preparation).toMatchObject({
      windowStartIndex: 550,
      tokensBefore: 180820,
      tokensBeforeSource: 'usage',
      keepRecentTokensUsed: 16599,
      firstKeptEntryIndex: 964,
      isSplitTurn: true,
      turnStartIndex: 957,
    });
    expect(preparation.previousSummary).toBe((entries[627] as { summary: string }).summary);
    expect(preparation.messagesToSummarize).toHaveLength(401);
    expect(preparation.turnPrefixMessages).toHaveLength(7);
    expect(preparation.recentMessages).toHaveLength(37);
  });

  it('summarises every message of the previous kept region', () => {
    const keptBefore = entries.slice(550, 627).filter((entry) => entry.type === 'message');
    expect(keptBefore.length).toBeGreaterThan(0);
    const summarized = new Set(preparation.summarizedEntryIds);
    for (const entry of keptBefore) expect(summarized.has(entry.id)).toBe(true);
  });
});
