import { session } from '@strata/testing';
import type { ContextTemplates } from '../context/context-templates';
import type { SessionEntry } from '../entries/entries';
import { computeFileLists } from '../compaction/file-operations';
import type { SummaryTemplates } from '../compaction/summary-templates';
import { charsPerFourCounter } from '../tokens/token-counter';
import { DEFAULT_BRANCH_SUMMARY_SETTINGS } from './branch-summary-settings';
import {
  BRANCH_SUMMARY_MAX_TOKENS,
  NO_CONTENT_TO_SUMMARIZE,
  assembleBranchSummary,
  buildBranchSummaryRequest,
} from './branch-summary-request';
import { collectEntriesForBranchSummary } from './collect-entries';
import { prepareBranchEntries } from './prepare-branch-entries';

const text = (tokens: number): string => 'x'.repeat(tokens * 4);
const counter = charsPerFourCounter;
const byIdOf = (entries: readonly SessionEntry[]) => new Map(entries.map((entry) => [entry.id, entry]));

const templates: SummaryTemplates = {
  summarizationSystem: 'SYSTEM',
  compactionSummary: 'FIRST',
  compactionUpdateSummary: 'UPDATE',
  compactionTurnPrefix: 'PREFIX',
  compactionShortSummary: 'SHORT',
  branchSummary: 'BRANCH INSTRUCTIONS',
  branchSummaryPreamble: 'The user explored another branch first. Its summary:\n',
  fileOperations: '<{{tag}}>\n{{paths}}\n</{{tag}}>',
};
const contextTemplates: ContextTemplates = {
  compactionSummaryContext: 'Earlier: {{summary}}',
  branchSummaryContext: 'Branch: {{summary}}',
};

describe('branch-summary settings', () => {
  it('default to disabled with a reserve of 16,384 tokens', () => {
    expect(DEFAULT_BRANCH_SUMMARY_SETTINGS).toEqual({ enabled: false, reserveTokens: 16384 });
  });
});

describe('collectEntriesForBranchSummary', () => {
  // A(e0001) ─ B(e0002) ─ C(e0003) ─ D(e0004, old leaf); A ─ E(e0005) ─ F(e0006, target)
  const builder = session().user('A').assistant('B').user('C').assistant('D');
  const entries = builder.branchFrom('e0001').assistant('E').user('F').entries;
  const byId = byIdOf(entries);

  it('walks from the old leaf back to the common ancestor, oldest first, ancestor excluded', () => {
    const collected = collectEntriesForBranchSummary(byId, 'e0004', 'e0006');
    expect(collected.commonAncestorId).toBe('e0001');
    expect(collected.entries.map((entry) => entry.id)).toEqual(['e0002', 'e0003', 'e0004']);
  });

  it('collects nothing without an old leaf', () => {
    expect(collectEntriesForBranchSummary(byId, null, 'e0006')).toEqual({
      entries: [],
      commonAncestorId: null,
    });
  });

  it('collects nothing when the target lies ahead of the old leaf', () => {
    expect(collectEntriesForBranchSummary(byId, 'e0002', 'e0004').entries).toEqual([]);
  });

  it('collects up to the target when it is an ancestor of the old leaf', () => {
    const collected = collectEntriesForBranchSummary(byId, 'e0004', 'e0002');
    expect(collected.entries.map((entry) => entry.id)).toEqual(['e0003', 'e0004']);
  });
});

describe('prepareBranchEntries', () => {
  describe('given a branch with tool calls, a compaction and an earlier branch summary', () => {
    const entries = session()
      .branchSummary('root', 'Nested', {
        details: { readFiles: ['nested-read.ts'], modifiedFiles: ['nested-mod.ts'] },
      })
      .user('Look at the config')
      .compaction({ firstKeptEntryId: 'e0002', tokensBefore: 100, summary: 'Compacted' })
      .assistantToolCalls([{ name: 'read', arguments: { path: 'config.json' } }])
      .toolResult('read', 'port = 8080')
      .modelChange('a/b')
      .assistant('The port is 8080').entries;
    const input = prepareBranchEntries(entries, 0, counter);

    it('includes tool results (reference defect 20: upstream skipped them)', () => {
      expect(input.messages.map((message) => message.role)).toEqual([
        'branchSummary',
        'user',
        'compactionSummary',
        'assistant',
        'toolResult',
        'assistant',
      ]);
    });

    it('collects file operations of tool calls and of earlier engine-made branch summaries', () => {
      expect(computeFileLists(input.fileOperations)).toEqual({
        readFiles: ['config.json', 'nested-read.ts'],
        modifiedFiles: ['nested-mod.ts'],
      });
    });
  });

  describe('given a huge tool result', () => {
    const entries = session()
      .user('go')
      .assistantToolCalls([{ name: 'bash', arguments: { command: 'cat log' } }])
      .toolResult('bash', text(5000)).entries;

    it('charges it at its transcript size (2,000 characters plus the notice)', () => {
      const input = prepareBranchEntries(entries, 1000, counter);
      expect(input.messages).toHaveLength(3);
      const resultTokens = Math.ceil((2000 + '\n\n[... 18000 more characters truncated]'.length) / 4);
      expect(input.totalTokens).toBe(
        resultTokens + 1 + Math.ceil(('bash'.length + '{"command":"cat log"}'.length) / 4),
      );
    });
  });

  describe('given more messages than the budget holds', () => {
    const entries = session()
      .user(text(100))
      .assistant(text(100))
      .user(text(100))
      .assistant(text(100)).entries;

    it('keeps the newest ones that fit and stops at the first that does not', () => {
      const input = prepareBranchEntries(entries, 250, counter);
      expect(input.messages).toHaveLength(2);
      expect(input.totalTokens).toBe(200);
    });
  });

  describe('given a summary entry at the edge of the budget', () => {
    const entries = session().user(text(10)).branchSummary('root', text(100)).user(text(50)).entries;

    it('still takes it while under 90 % of the budget, then stops', () => {
      const input = prepareBranchEntries(entries, 100, counter);
      expect(input.messages.map((message) => message.role)).toEqual(['branchSummary', 'user']);
      expect(input.totalTokens).toBe(150);
    });

    it('leaves it out when 90 % of the budget is already used', () => {
      const input = prepareBranchEntries(entries, 55, counter);
      expect(input.messages.map((message) => message.role)).toEqual(['user']);
    });
  });

  describe('given an empty branch summary and one made by a pi extension (issue 13, items 10 and 11)', () => {
    const entries = session()
      .user('first')
      .branchSummary('root', '')
      .branchSummary('root', 'by an extension', { details: { readFiles: 'index' }, fromHook: true })
      .user('second').entries;

    it('counts the empty one as a message, as pi 0.73.1 does, and reads no file lists from the extension', () => {
      const input = prepareBranchEntries(entries, 0, counter);
      expect(input.messages.map((message) => message.role)).toEqual([
        'user',
        'branchSummary',
        'branchSummary',
        'user',
      ]);
      expect(computeFileLists(input.fileOperations)).toEqual({ readFiles: [], modifiedFiles: [] });
    });
  });
});

describe('buildBranchSummaryRequest', () => {
  const entries = session()
    .user('Try approach B')
    .assistantToolCalls([{ name: 'read', arguments: { path: 'b.ts' } }])
    .toolResult('read', 'export const b = 1;').entries;
  const input = prepareBranchEntries(entries, 0, counter);

  it('sends the transcript with tool results and the branch instructions', () => {
    expect(buildBranchSummaryRequest(input, templates, { contextTemplates })).toEqual({
      kind: 'generate',
      request: {
        purpose: 'branch',
        systemPrompt: 'SYSTEM',
        prompt:
          '<conversation>\n[User]: Try approach B\n\n[Assistant tool calls]: read(path="b.ts")\n\n' +
          '[Tool result]: export const b = 1;\n</conversation>\n\nBRANCH INSTRUCTIONS',
        maxTokens: BRANCH_SUMMARY_MAX_TOKENS,
      },
    });
  });

  it('lets custom instructions replace the branch instructions', () => {
    const plan = buildBranchSummaryRequest(input, templates, {
      contextTemplates,
      customInstructions: 'Only list files',
    });
    expect(
      plan.kind === 'generate' && plan.request.prompt.endsWith('</conversation>\n\nOnly list files'),
    ).toBe(true);
    expect(plan.kind === 'generate' && plan.request.customInstructions).toBe('Only list files');
  });

  it('needs no model call when nothing fits', () => {
    expect(
      buildBranchSummaryRequest(
        { messages: [], fileOperations: input.fileOperations, totalTokens: 0 },
        templates,
        { contextTemplates },
      ),
    ).toEqual({ kind: 'no-content', summary: NO_CONTENT_TO_SUMMARIZE });
  });
});

describe('assembleBranchSummary', () => {
  it('sets the preamble and the file tags off from the summary (reference defect 10)', () => {
    expect(
      assembleBranchSummary('## Goal\nTry B', { readFiles: ['b.ts'], modifiedFiles: [] }, templates),
    ).toBe(
      'The user explored another branch first. Its summary:\n\n## Goal\nTry B\n\n<read-files>\nb.ts\n</read-files>',
    );
  });
});
