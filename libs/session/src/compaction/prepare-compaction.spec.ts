import { session } from '@strata/testing';
import type { SessionEntry } from '../entries/entries';
import type { AgentMessage } from '../entries/messages';
import { charsPerFourCounter } from '../tokens/token-counter';
import { computeFileLists } from './file-operations';
import {
  compactionTokensBefore,
  type CompactionPreparation,
  type CompactionReady,
  prepareCompaction,
} from './prepare-compaction';

const text = (tokens: number): string => 'x'.repeat(tokens * 4);
const counter = charsPerFourCounter;
const noCalibration = { calibrateKeepBudget: false } as const;

function ready(preparation: CompactionPreparation): CompactionReady {
  if (preparation.kind !== 'ready')
    throw new Error(`expected a ready preparation, got skip: ${preparation.reason}`);
  return preparation;
}

function textsOf(messages: readonly AgentMessage[]): string[] {
  return messages.map((message) => {
    if (message.role === 'user') return typeof message.content === 'string' ? message.content : 'blocks';
    if (message.role === 'assistant') {
      return message.content.map((block) => (block.type === 'text' ? block.text : block.type)).join('|');
    }
    return message.role;
  });
}

describe('prepareCompaction', () => {
  describe('given a path whose last entry is a compaction', () => {
    const entries = session()
      .user(text(100))
      .assistant(text(100))
      .compaction({ firstKeptEntryId: 'e0002', tokensBefore: 500 }).entries;

    it('skips as already compacted', () => {
      expect(prepareCompaction(entries, { keepRecentTokens: 10 }, counter)).toEqual({
        kind: 'skip',
        reason: 'already_compacted',
      });
    });
  });

  describe('given an empty path', () => {
    it('skips with nothing to summarise', () => {
      expect(prepareCompaction([], { keepRecentTokens: 10 }, counter)).toEqual({
        kind: 'skip',
        reason: 'nothing_to_summarize',
      });
    });
  });

  describe('given a session that fits in the keep budget', () => {
    const entries = session().user('hello').assistant('hi').user('again').assistant('ok').entries;

    it('skips instead of writing an empty compaction (reference defect 17)', () => {
      expect(prepareCompaction(entries, { keepRecentTokens: 20000 }, counter, noCalibration)).toEqual({
        kind: 'skip',
        reason: 'nothing_to_summarize',
      });
    });
  });

  describe('given a forced compaction of a session that fits in the keep budget (issue 13.4)', () => {
    const forced = { calibrateKeepBudget: false, force: true } as const;

    it('keeps the last turn only and summarises the turns before it', () => {
      const entries = session().user('hello').assistant('hi').user('again').assistant('ok').entries;
      const preparation = ready(prepareCompaction(entries, { keepRecentTokens: 20000 }, counter, forced));
      expect(preparation).toMatchObject({ firstKeptEntryId: 'e0003', isSplitTurn: false, forcedCut: true });
      expect(textsOf(preparation.messagesToSummarize)).toEqual(['hello', 'hi']);
      expect(textsOf(preparation.recentMessages)).toEqual(['again', 'ok']);
      expect(preparation.summarizedEntryIds).toEqual(['e0001', 'e0002']);
    });

    it('keeps a whole tool loop of the last turn, never a result without its call', () => {
      const entries = session()
        .user('first')
        .assistant('one')
        .user('read it')
        .assistantToolCalls([{ name: 'read', arguments: { path: 'a.ts' } }])
        .toolResult('read', 'contents')
        .assistant('done').entries;
      const preparation = ready(prepareCompaction(entries, { keepRecentTokens: 20000 }, counter, forced));
      expect(preparation.firstKeptEntryId).toBe('e0003');
      expect(textsOf(preparation.recentMessages)).toEqual(['read it', 'toolCall', 'toolResult', 'done']);
    });

    it('splits the only turn: keeps its last answer and summarises its beginning as the turn prefix', () => {
      const entries = session()
        .user('read it')
        .assistantToolCalls([{ name: 'read', arguments: { path: 'a.ts' } }])
        .toolResult('read', 'contents')
        .assistant('done').entries;
      const preparation = ready(prepareCompaction(entries, { keepRecentTokens: 20000 }, counter, forced));
      expect(preparation).toMatchObject({
        firstKeptEntryId: 'e0004',
        isSplitTurn: true,
        turnStartIndex: 0,
        forcedCut: true,
      });
      expect(preparation.messagesToSummarize).toEqual([]);
      expect(textsOf(preparation.turnPrefixMessages)).toEqual(['read it', 'toolCall', 'toolResult']);
      expect(textsOf(preparation.recentMessages)).toEqual(['done']);
    });

    it('keeps the call with its result when the only turn ends in a tool result', () => {
      const entries = session()
        .user('read it')
        .assistantToolCalls([{ name: 'read', arguments: { path: 'a.ts' } }])
        .toolResult('read', 'contents').entries;
      const preparation = ready(prepareCompaction(entries, { keepRecentTokens: 20000 }, counter, forced));
      expect(preparation.firstKeptEntryId).toBe('e0002');
      expect(textsOf(preparation.turnPrefixMessages)).toEqual(['read it']);
      expect(textsOf(preparation.recentMessages)).toEqual(['toolCall', 'toolResult']);
    });

    it('keeps the metadata just before the kept turn with it', () => {
      const entries = session()
        .user('hello')
        .assistant('hi')
        .thinkingLevelChange('high')
        .user('again')
        .assistant('ok').entries;
      const preparation = ready(prepareCompaction(entries, { keepRecentTokens: 20000 }, counter, forced));
      expect(preparation.firstKeptEntryId).toBe('e0003');
      expect(textsOf(preparation.messagesToSummarize)).toEqual(['hello', 'hi']);
    });

    it('starts after the previous compaction: keeps the last turn of what it kept and what came since', () => {
      const entries = session()
        .user('old')
        .assistant('old answer')
        .user('kept')
        .assistant('kept answer')
        .compaction({ firstKeptEntryId: 'e0003', tokensBefore: 100 })
        .user('new')
        .assistant('new answer').entries;
      const preparation = ready(prepareCompaction(entries, { keepRecentTokens: 20000 }, counter, forced));
      expect(preparation.firstKeptEntryId).toBe('e0006');
      expect(textsOf(preparation.messagesToSummarize)).toEqual(['kept', 'kept answer']);
      expect(preparation.previousCompactionId).toBe('e0005');
    });

    it('changes nothing when the keep budget already leaves something to summarise', () => {
      const entries = session().user('hello').assistant('hi').user('again').assistant(text(300)).entries;
      const plain = ready(prepareCompaction(entries, { keepRecentTokens: 100 }, counter, noCalibration));
      const withForce = ready(prepareCompaction(entries, { keepRecentTokens: 100 }, counter, forced));
      expect(withForce).toEqual(plain);
      expect(plain.forcedCut).toBe(false);
    });

    it('still skips a window of one message, an empty path and a path that ends in a compaction', () => {
      const single = session().user('hello').entries;
      expect(prepareCompaction(single, { keepRecentTokens: 20000 }, counter, forced)).toEqual({
        kind: 'skip',
        reason: 'nothing_to_summarize',
      });
      expect(prepareCompaction([], { keepRecentTokens: 20000 }, counter, forced)).toEqual({
        kind: 'skip',
        reason: 'nothing_to_summarize',
      });
      const compacted = session()
        .user('hello')
        .assistant('hi')
        .compaction({ firstKeptEntryId: 'e0001', tokensBefore: 10 }).entries;
      expect(prepareCompaction(compacted, { keepRecentTokens: 20000 }, counter, forced)).toEqual({
        kind: 'skip',
        reason: 'already_compacted',
      });
    });
  });

  describe('given two turns where the second one crosses the budget at its user message', () => {
    const entries = session()
      .user('first')
      .assistantToolCalls([
        { name: 'read', arguments: { path: 'src/a.ts' } },
        { name: 'edit', arguments: { path: 'src/b.ts' } },
        { name: 'write', arguments: { path: 'src/c.ts' } },
        { name: 'read', arguments: { path: 'src/b.ts' } },
        { name: 'bash', arguments: { command: 'ls', path: 'ignored' } },
      ])
      .toolResult('read', 'a')
      .toolResult('edit', 'ok')
      .toolResult('write', 'ok')
      .toolResult('read', 'b')
      .toolResult('bash', 'ls')
      .assistant('done', { usage: { input: 1000, output: 10, totalTokens: 1010 } })
      .modelChange('openai/gpt')
      .user(text(300))
      .assistant(text(10), { usage: { input: 2000, output: 10, totalTokens: 2010 } }).entries;
    const preparation = ready(prepareCompaction(entries, { keepRecentTokens: 200 }, counter, noCalibration));

    it('keeps from the pulled-in metadata and summarises the first turn', () => {
      expect(preparation.firstKeptEntryId).toBe('e0009');
      expect(preparation.firstKeptEntryIndex).toBe(8);
      expect(preparation.messagesToSummarize).toHaveLength(8);
      expect(preparation.turnPrefixMessages).toEqual([]);
      expect(preparation.isSplitTurn).toBe(false);
      expect(textsOf(preparation.recentMessages)).toEqual([text(300), text(10)]);
      expect(preparation.summarizedEntryIds).toEqual(entries.slice(0, 8).map((entry) => entry.id));
    });

    it('takes tokensBefore from the newest usage', () => {
      expect(preparation.tokensBefore).toBe(2010);
      expect(preparation.tokensBeforeSource).toBe('usage');
    });

    it('tracks read, written and edited files of the summarised tool calls', () => {
      expect(computeFileLists(preparation.fileOperations)).toEqual({
        readFiles: ['src/a.ts'],
        modifiedFiles: ['src/b.ts', 'src/c.ts'],
      });
    });
  });

  describe('given measured prompt tokens twice the estimate', () => {
    const entries = session()
      .user(text(1000))
      .assistant(text(990), { usage: { input: 4000, output: 0, totalTokens: 4000 } })
      .user(text(10)).entries;

    it('shrinks the keep budget by that ratio', () => {
      const preparation = ready(prepareCompaction(entries, { keepRecentTokens: 1500 }, counter));
      expect(preparation.keepRecentTokensUsed).toBe(750);
      expect(preparation.firstKeptEntryIndex).toBe(1);
    });

    it('leaves the budget alone when calibration is off (everything then fits)', () => {
      expect(prepareCompaction(entries, { keepRecentTokens: 1500 }, counter, noCalibration)).toEqual({
        kind: 'skip',
        reason: 'nothing_to_summarize',
      });
    });
  });

  describe('given a long turn cut in its middle', () => {
    const entries = session()
      .user('old request')
      .assistant('old answer')
      .user('new request')
      .assistantToolCalls([{ name: 'read', arguments: { path: 'big.txt' } }])
      .toolResult('read', text(500))
      .assistantToolCalls([{ name: 'edit', arguments: { path: 'big.txt' } }])
      .toolResult('edit', text(50))
      .assistant(text(50)).entries;
    const preparation = ready(prepareCompaction(entries, { keepRecentTokens: 120 }, counter, noCalibration));

    it('summarises the turn prefix apart from the history', () => {
      expect(preparation.isSplitTurn).toBe(true);
      expect(preparation.turnStartIndex).toBe(2);
      expect(preparation.firstKeptEntryIndex).toBe(5);
      expect(textsOf(preparation.messagesToSummarize)).toEqual(['old request', 'old answer']);
      expect(textsOf(preparation.turnPrefixMessages)).toEqual(['new request', 'toolCall', 'toolResult']);
      expect(preparation.summarizedEntryIds).toEqual(['e0001', 'e0002', 'e0003', 'e0004', 'e0005']);
    });

    it('tracks the file operations of the prefix too', () => {
      expect(computeFileLists(preparation.fileOperations)).toEqual({
        readFiles: ['big.txt'],
        modifiedFiles: [],
      });
    });
  });

  describe('given summary(A), kept B and new C (reference defect 1)', () => {
    // A = e0001–e0002, B = e0003–e0004 (kept by the compaction e0005), C = e0006–e0007.
    const builder = session()
      .user('A request')
      .assistant('A answer')
      .user(text(100))
      .assistant(text(100))
      .compaction({
        firstKeptEntryId: 'e0003',
        tokensBefore: 900,
        summary: 'Summary of A',
        details: { readFiles: ['old-read.ts'], modifiedFiles: ['old-edit.ts'] },
      })
      .user(text(300))
      .assistant(text(10));

    it('starts the window at the previous first kept entry and summarises B with the previous summary', () => {
      const preparation = ready(
        prepareCompaction(builder.entries, { keepRecentTokens: 200 }, counter, noCalibration),
      );
      expect(preparation.windowStartIndex).toBe(2);
      expect(preparation.firstKeptEntryId).toBe('e0006');
      expect(textsOf(preparation.messagesToSummarize)).toEqual([text(100), text(100)]);
      expect(preparation.summarizedEntryIds).toEqual(['e0003', 'e0004']);
      expect(preparation.previousSummary).toBe('Summary of A');
      expect(preparation.previousCompactionId).toBe('e0005');
    });

    it('carries the previous file lists forward', () => {
      const preparation = ready(
        prepareCompaction(builder.entries, { keepRecentTokens: 200 }, counter, noCalibration),
      );
      expect(computeFileLists(preparation.fileOperations)).toEqual({
        readFiles: ['old-read.ts'],
        modifiedFiles: ['old-edit.ts'],
      });
    });

    it('may keep part of B: the kept region then reaches back over the previous compaction', () => {
      const preparation = ready(
        prepareCompaction(builder.entries, { keepRecentTokens: 400 }, counter, noCalibration),
      );
      expect(preparation.firstKeptEntryId).toBe('e0004');
      expect(preparation.isSplitTurn).toBe(true);
      expect(preparation.messagesToSummarize).toEqual([]);
      expect(textsOf(preparation.turnPrefixMessages)).toEqual([text(100)]);
    });
  });

  describe('given a previous compaction made by an extension', () => {
    const entries = session()
      .user(text(100))
      .compaction({
        firstKeptEntryId: 'e0001',
        tokensBefore: 900,
        details: { readFiles: ['hook.ts'], modifiedFiles: [] },
        fromExtension: true,
      })
      .assistant(text(100))
      .user(text(300)).entries;

    it('does not carry its file lists', () => {
      const preparation = ready(
        prepareCompaction(entries, { keepRecentTokens: 200 }, counter, noCalibration),
      );
      expect(computeFileLists(preparation.fileOperations)).toEqual({ readFiles: [], modifiedFiles: [] });
    });
  });

  describe('given a kept message larger than the keep budget (reference defect 1, the loop)', () => {
    const compacted = () =>
      session()
        .user('old')
        .assistant('old answer')
        .user(text(30000))
        .assistant('short')
        .compaction({ firstKeptEntryId: 'e0003', tokensBefore: 31000, summary: 'Summary of old' })
        .user('next')
        .assistant('fine');

    it('neither drops the large message nor prepares a compaction that changes nothing', () => {
      expect(
        prepareCompaction(compacted().entries, { keepRecentTokens: 20000 }, counter, noCalibration),
      ).toEqual({
        kind: 'skip',
        reason: 'nothing_to_summarize',
      });
    });

    it('summarises the large message once enough newer context exists', () => {
      const entries = compacted().user(text(25000)).assistant('done').entries;
      const preparation = ready(
        prepareCompaction(entries, { keepRecentTokens: 20000 }, counter, noCalibration),
      );
      expect(preparation.summarizedEntryIds).toEqual(['e0003', 'e0004', 'e0006', 'e0007']);
      expect(preparation.firstKeptEntryId).toBe('e0008');
    });
  });

  describe('given usage recorded only before the latest compaction (reference defect 8)', () => {
    const entries: SessionEntry[] = [
      ...session()
        .user(text(100))
        .assistant(text(100), { usage: { input: 150000, output: 100, totalTokens: 150100 } })
        .compaction({ firstKeptEntryId: 'e0002', tokensBefore: 150100, summary: text(50) })
        .user(text(300)).entries,
    ];
    const preparation = ready(prepareCompaction(entries, { keepRecentTokens: 200 }, counter));

    it('ignores the stale usage and estimates tokensBefore from the context', () => {
      expect(preparation.tokensBeforeSource).toBe('estimate');
      expect(preparation.tokensBefore).toBe(50 + 100 + 300);
    });

    it('does not calibrate the keep budget with it', () => {
      expect(preparation.keepRecentTokensUsed).toBe(200);
    });
  });

  describe('given a turn started by a custom-role message (reference defect 5)', () => {
    const entries = session()
      .user(text(100))
      .assistant(text(100))
      .customRoleMessage('ext', text(300))
      .assistant(text(10)).entries;

    it('keeps from it as a turn start', () => {
      const preparation = ready(
        prepareCompaction(entries, { keepRecentTokens: 200 }, counter, noCalibration),
      );
      expect(preparation.firstKeptEntryIndex).toBe(2);
      expect(preparation.isSplitTurn).toBe(false);
    });
  });

  describe('given messages after the newest usage (issue 13, item 11)', () => {
    // The answer reports 2,010 tokens; a tool round and a user message follow it.
    const entries = session()
      .user(text(100))
      .assistant(text(10), { usage: { input: 2000, output: 10, totalTokens: 2010 } })
      .bashExecution('ls', text(40))
      .user(text(60)).entries;
    const preparation = ready(prepareCompaction(entries, { keepRecentTokens: 50 }, counter, noCalibration));

    it('adds the estimate of those messages to the usage, as pi 0.73.1 does', () => {
      expect(preparation.tokensBeforeSource).toBe('usage');
      expect(preparation.tokensBefore).toBe(2010 + Math.ceil((2 + 160) / 4) + 60);
      expect(compactionTokensBefore(entries, counter)).toMatchObject({ tokens: preparation.tokensBefore });
    });
  });

  describe('given usage only in the region the latest compaction kept (switch freshUsageOnly)', () => {
    const entries = session()
      .user(text(100))
      .assistant(text(100), { usage: { input: 5000, output: 100, totalTokens: 5100 } })
      .compaction({ firstKeptEntryId: 'e0001', tokensBefore: 5100, summary: text(50) })
      .user(text(30)).entries;

    it('estimates by default, and takes that usage plus what follows it with the switch off', () => {
      expect(compactionTokensBefore(entries, counter)).toMatchObject({ source: 'estimate', tokens: 280 });
      expect(compactionTokensBefore(entries, counter, { freshUsageOnly: false })).toMatchObject({
        source: 'usage',
        tokens: 5100 + 30,
      });
    });
  });

  describe('given a user image and a shell run kept out of the context (switch countEveryRole)', () => {
    const entries = session()
      .user([
        { type: 'text', text: text(10) },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ])
      .bashExecution('ls', text(20), { excludeFromContext: true }).entries;

    it('charges the image and not the run by default, and the reverse as pi does with the switch off', () => {
      expect(compactionTokensBefore(entries, counter).tokens).toBe(10 + 1200);
      expect(compactionTokensBefore(entries, counter, { countEveryRole: false }).tokens).toBe(10 + 1 + 20);
    });
  });

  describe('given an empty branch summary that starts the turn being cut (issue 13, item 11)', () => {
    const builder = session().user(text(100)).assistant(text(100));
    builder.branchSummary('e0002', '').assistantToolCalls([{ name: 'read' }]);
    const entries = builder.toolResult('read', text(300)).assistant(text(10)).entries;

    it('counts it as a message of the split turn, as pi 0.73.1 does', () => {
      const preparation = ready(
        prepareCompaction(entries, { keepRecentTokens: 250 }, counter, noCalibration),
      );
      expect(preparation.firstKeptEntryIndex).toBe(5);
      expect(preparation.isSplitTurn).toBe(true);
      expect(preparation.turnPrefixMessages.map((message) => message.role)).toEqual([
        'branchSummary',
        'assistant',
        'toolResult',
      ]);
      expect(textsOf(preparation.messagesToSummarize)).toEqual([text(100), text(100)]);
    });
  });

  describe('given a previous compaction of a pi extension (`fromHook`) with its own details', () => {
    const entries = session()
      .user(text(100))
      .compaction({
        firstKeptEntryId: 'e0001',
        tokensBefore: 900,
        details: { readFiles: 'artifact-index', version: 2 },
        fromHook: true,
      })
      .assistant(text(100))
      .user(text(300)).entries;

    it('neither fails nor reads file lists from them', () => {
      const preparation = ready(
        prepareCompaction(entries, { keepRecentTokens: 200 }, counter, noCalibration),
      );
      expect(computeFileLists(preparation.fileOperations)).toEqual({ readFiles: [], modifiedFiles: [] });
    });
  });
});
