import { session } from '@strata/testing';
import type { ContextTemplates } from '../context/context-templates';
import { charsPerFourCounter } from '../tokens/token-counter';
import {
  NO_PRIOR_HISTORY,
  assembleCompactionSummary,
  buildCompactionRequests,
  buildShortSummaryRequest,
  historySummaryMaxTokens,
  shortSummaryMaxTokens,
  turnPrefixMaxTokens,
} from './compaction-requests';
import { type CompactionReady, prepareCompaction } from './prepare-compaction';
import type { SummaryTemplates } from './summary-templates';

const text = (tokens: number): string => 'x'.repeat(tokens * 4);
const counter = charsPerFourCounter;

const templates: SummaryTemplates = {
  summarizationSystem: 'SYSTEM',
  compactionSummary: 'FIRST INSTRUCTIONS',
  compactionUpdateSummary: 'UPDATE INSTRUCTIONS',
  compactionTurnPrefix: 'PREFIX INSTRUCTIONS',
  compactionShortSummary: 'SHORT INSTRUCTIONS',
  branchSummary: 'BRANCH INSTRUCTIONS',
  branchSummaryPreamble: 'PREAMBLE:',
  fileOperations: '<{{tag}}>\n{{paths}}\n</{{tag}}>',
};
const contextTemplates: ContextTemplates = {
  compactionSummaryContext: 'Earlier summary:\n<summary>\n{{summary}}\n</summary>',
  branchSummaryContext: 'Branch summary:\n<summary>\n{{summary}}\n</summary>',
};
const baseOptions = { reserveTokens: 16384, contextTemplates };

function prepared(
  entries: Parameters<typeof prepareCompaction>[0],
  keepRecentTokens: number,
): CompactionReady {
  const preparation = prepareCompaction(entries, { keepRecentTokens }, counter, {
    calibrateKeepBudget: false,
  });
  if (preparation.kind !== 'ready') throw new Error(`unexpected skip: ${preparation.reason}`);
  return preparation;
}

describe('output caps', () => {
  it('are floor(0.8×), floor(0.5×) and min(512, floor(0.2×)) of the reserve', () => {
    expect([
      historySummaryMaxTokens(16384),
      turnPrefixMaxTokens(16384),
      shortSummaryMaxTokens(16384),
    ]).toEqual([13107, 8192, 512]);
    expect(shortSummaryMaxTokens(1000)).toBe(200);
  });
});

describe('buildCompactionRequests', () => {
  describe('given a first compaction', () => {
    const entries = session().user('Fix the bug').assistant('Fixed it').user(text(300)).entries;
    const plan = buildCompactionRequests(prepared(entries, 200), templates, baseOptions);

    it('asks for a history summary with the first-compaction instructions', () => {
      expect(plan.requests).toEqual([
        {
          purpose: 'history',
          systemPrompt: 'SYSTEM',
          prompt:
            '<conversation>\n[User]: Fix the bug\n\n[Assistant]: Fixed it\n</conversation>\n\nFIRST INSTRUCTIONS',
          maxTokens: 13107,
        },
      ]);
      expect(plan.turnPrefix).toBeUndefined();
    });
  });

  describe('given a previous summary, hook context and custom instructions', () => {
    const entries = session()
      .user('old')
      .compaction({ firstKeptEntryId: 'e0001', tokensBefore: 10, summary: 'PREVIOUS' })
      .assistant('Next step done')
      .user(text(300)).entries;
    const preparation = prepared(entries, 200);

    it('lays out conversation, previous summary, context bullets, update instructions and the focus', () => {
      const plan = buildCompactionRequests(preparation, templates, {
        ...baseOptions,
        customInstructions: 'the parser',
        hookContext: ['ticket ABC-1', 'branch main'],
      });
      expect(plan.history).toEqual({
        kind: 'generate',
        request: {
          purpose: 'history',
          systemPrompt: 'SYSTEM',
          prompt:
            '<conversation>\n[User]: old\n\n[Assistant]: Next step done\n</conversation>\n\n' +
            '<previous-summary>\nPREVIOUS\n</previous-summary>\n\n' +
            '<additional-context>\n- ticket ABC-1\n- branch main\n</additional-context>\n\n' +
            'UPDATE INSTRUCTIONS\n\nAdditional focus: the parser',
          maxTokens: 13107,
          customInstructions: 'the parser',
        },
      });
    });

    it('lets a hook prompt replace the base instructions', () => {
      const plan = buildCompactionRequests(preparation, templates, {
        ...baseOptions,
        hookPrompt: 'HOOK PROMPT',
      });
      const prompt = plan.requests[0]?.prompt ?? '';
      expect(prompt.endsWith('</previous-summary>\n\nHOOK PROMPT')).toBe(true);
      expect(prompt).not.toContain('UPDATE INSTRUCTIONS');
    });
  });

  describe('given a split turn', () => {
    const entries = session()
      .user('old request')
      .assistant('old answer')
      .user('new request')
      .assistantToolCalls([{ name: 'read', arguments: { path: 'big.txt' } }])
      .toolResult('read', text(600))
      .assistant(text(150)).entries;
    const preparation = prepared(entries, 120);
    const plan = buildCompactionRequests(preparation, templates, {
      ...baseOptions,
      customInstructions: 'keep the numbers',
      hookContext: ['from hook'],
    });

    it('asks for the history and the turn prefix at once', () => {
      expect(preparation.isSplitTurn).toBe(true);
      expect(plan.requests.map((request) => request.purpose)).toEqual(['history', 'turn-prefix']);
    });

    it('gives custom instructions and hook context to the turn-prefix request too (reference defect 13)', () => {
      expect(plan.turnPrefix).toEqual({
        purpose: 'turn-prefix',
        systemPrompt: 'SYSTEM',
        prompt:
          '<conversation>\n[User]: new request\n\n[Assistant tool calls]: read(path="big.txt")\n\n' +
          `[Tool result]: ${'x'.repeat(2000)}\n\n[... 400 more characters truncated]\n</conversation>\n\n` +
          '<additional-context>\n- from hook\n</additional-context>\n\n' +
          'PREFIX INSTRUCTIONS\n\nAdditional focus: keep the numbers',
        maxTokens: 8192,
        customInstructions: 'keep the numbers',
      });
    });
  });

  describe('given a split turn with no history messages and a previous summary (reference defect 2)', () => {
    const entries = session()
      .user('A')
      .user(text(100))
      .assistant(text(100))
      .compaction({ firstKeptEntryId: 'e0002', tokensBefore: 900, summary: 'PREVIOUS' })
      .user(text(150))
      .assistant(text(150)).entries;
    const preparation = prepared(entries, 400);
    const plan = buildCompactionRequests(preparation, templates, baseOptions);

    it('keeps the previous summary as the history part instead of "No prior history."', () => {
      expect(preparation.messagesToSummarize).toEqual([]);
      expect(preparation.isSplitTurn).toBe(true);
      expect(plan.history).toEqual({ kind: 'reuse', summary: 'PREVIOUS' });
      expect(plan.requests.map((request) => request.purpose)).toEqual(['turn-prefix']);
    });

    it('merges it with the turn-prefix summary', () => {
      const history = plan.history.kind === 'reuse' ? plan.history.summary : '';
      expect(
        assembleCompactionSummary(history, 'PREFIX SUMMARY', { readFiles: [], modifiedFiles: [] }, templates),
      ).toBe('PREVIOUS\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX SUMMARY');
    });
  });

  describe('given a split turn with neither history nor a previous summary', () => {
    const entries = session()
      .user('request')
      .assistantToolCalls([{ name: 'bash', arguments: { command: 'make' } }])
      .toolResult('bash', text(400))
      .assistant(text(150)).entries;

    it('uses the "No prior history." text for the history part', () => {
      const plan = buildCompactionRequests(prepared(entries, 120), templates, baseOptions);
      expect(plan.history).toEqual({ kind: 'reuse', summary: NO_PRIOR_HISTORY });
    });
  });

  describe('given an input budget (reference defect 16)', () => {
    const builder = session();
    for (let index = 0; index < 30; index += 1) builder.user(`${index} ${text(200)}`).assistant(text(50));
    const entries = builder.user(text(300)).entries;
    const preparation = prepared(entries, 200);

    it('bounds the whole request and marks the left-out messages', () => {
      const plan = buildCompactionRequests(preparation, templates, {
        ...baseOptions,
        inputBudget: { inputTokenBudget: 2000, counter },
      });
      const request = plan.requests[0]!;
      expect(counter.countPieces([request.systemPrompt, request.prompt], 0)).toBeLessThanOrEqual(2000);
      expect(request.prompt).toMatch(/^<conversation>\n\[\d+ earlier messages omitted\]\n\n/);
      expect(request.prompt.endsWith('FIRST INSTRUCTIONS')).toBe(true);
    });
  });
});

describe('buildShortSummaryRequest', () => {
  const entries = session()
    .user('old')
    .assistant('old answer')
    .user(text(300))
    .assistant('Kept answer').entries;
  const preparation = prepared(entries, 200);

  it('reads the kept messages and the new summary without its file tags', () => {
    const request = buildShortSummaryRequest(
      preparation,
      'NEW SUMMARY\n\n<read-files>\na.ts\n</read-files>',
      templates,
      { ...baseOptions, hookContext: ['ctx'] },
    );
    expect(request).toEqual({
      purpose: 'short-summary',
      systemPrompt: 'SYSTEM',
      prompt:
        `<conversation>\n[User]: ${text(300)}\n\n[Assistant]: Kept answer\n</conversation>\n\n` +
        '<previous-summary>\nNEW SUMMARY\n</previous-summary>\n\n' +
        '<additional-context>\n- ctx\n</additional-context>\n\nSHORT INSTRUCTIONS',
      maxTokens: 512,
    });
  });
});

describe('assembleCompactionSummary', () => {
  it('joins history and turn prefix with a rule and the turn-context heading, then the file tags', () => {
    expect(
      assembleCompactionSummary(
        'HISTORY',
        'PREFIX',
        { readFiles: ['r.ts'], modifiedFiles: ['m.ts'] },
        templates,
      ),
    ).toBe(
      'HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX\n\n' +
        '<read-files>\nr.ts\n</read-files>\n<modified-files>\nm.ts\n</modified-files>',
    );
  });

  it('replaces file tags a reused summary already carries (reference defect 10)', () => {
    expect(
      assembleCompactionSummary(
        'HISTORY\n\n<read-files>\nold.ts\n</read-files>',
        undefined,
        { readFiles: ['r.ts'], modifiedFiles: [] },
        templates,
      ),
    ).toBe('HISTORY\n\n<read-files>\nr.ts\n</read-files>');
  });
});
