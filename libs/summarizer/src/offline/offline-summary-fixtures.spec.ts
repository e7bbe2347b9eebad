// The offline summariser on the two real pi sessions (../shared/fixtures/pi), fed the exact history
// prompts the session lib assembles, so the transcript format is the serialiser's, not ours.
import {
  type CompactionReady,
  buildCompactionRequests,
  charsPerFourCounter,
  computeFileLists,
  convertToLlm,
  fileOperationsOfMessages,
  parseSessionFile,
  prepareCompaction,
  serializeMessage,
} from '@strata/session';
import { describeWithFixture, readPiFixture } from '@strata/testing';
import { offlineSummary } from './offline-extractive-summarizer';
import { OFFLINE_SUMMARY_LABEL } from './render-summary';

const templates = {
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

function prepared(fixture: string): CompactionReady {
  const { entries } = parseSessionFile(readPiFixture(fixture), { mode: 'strict' });
  const preparation = prepareCompaction(entries, { keepRecentTokens: 20000 }, charsPerFourCounter);
  if (preparation.kind !== 'ready') throw new Error(`unexpected skip: ${preparation.reason}`);
  return preparation;
}

/** The last `[User]: ` block of the transcript, computed with the session lib's serialiser. */
function lastUserBlock(preparation: CompactionReady): string {
  const users = convertToLlm(preparation.messagesToSummarize, contextTemplates).filter(
    (m) => m.role === 'user',
  );
  const block = users.flatMap((message) => serializeMessage(message)).at(-1) ?? '';
  return block.slice('[User]: '.length);
}

for (const fixture of ['large-session.jsonl', 'before-compaction.jsonl']) {
  describeWithFixture(fixture, `the offline summary of the ${fixture} history`, () => {
    const preparation = prepared(fixture);
    const plan = buildCompactionRequests(preparation, templates, { reserveTokens: 16384, contextTemplates });
    if (plan.history.kind !== 'generate') throw new Error('expected a history request');
    const { prompt, maxTokens } = plan.history.request;
    const run = (): string =>
      offlineSummary({ purpose: 'history', systemPrompt: 'SYSTEM', prompt, maxTokens });
    const summary = run();

    it('is labelled, deterministic and within the budget', () => {
      expect(summary.split('\n')[0]).toBe(OFFLINE_SUMMARY_LABEL);
      expect(run()).toBe(summary);
      expect(summary.length).toBeLessThanOrEqual(maxTokens * 4);
    });

    it('keeps the last user message of the summarised span word for word', () => {
      const last = lastUserBlock(preparation);
      expect(last.length).toBeGreaterThan(0);
      expect(summary).toContain(last);
    });

    it('keeps every path the summarised tool calls read or modified', () => {
      const lists = computeFileLists(fileOperationsOfMessages(preparation.messagesToSummarize));
      expect(lists.readFiles.length + lists.modifiedFiles.length).toBeGreaterThan(0);
      for (const path of [...lists.readFiles, ...lists.modifiedFiles])
        expect(summary).toContain(`\`${path}\``);
    });

    it('keeps the file paths written in the previous summary', () => {
      const previousPaths = [
        ...(preparation.previousSummary ?? '').matchAll(/`([^`\s]+\/[^`\s]+\.ts)`/g),
      ].map((match) => match[1] ?? '');
      for (const path of previousPaths) expect(summary).toContain(path);
      if (fixture === 'before-compaction.jsonl') expect(previousPaths.length).toBeGreaterThan(0);
    });
  });
}
