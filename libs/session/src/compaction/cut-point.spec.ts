import { session } from '@strata/testing';
import { charsPerFourCounter } from '../tokens/token-counter';
import { findCutPoint, findTurnStartIndex, findValidCutPoints, isValidCutPoint } from './cut-point';

/** A text of exactly `tokens` tokens under the chars/4 counter. */
const text = (tokens: number): string => 'x'.repeat(tokens * 4);
const counter = charsPerFourCounter;

describe('valid cut points', () => {
  const entries = session()
    .user('u')
    .assistantToolCalls([{ name: 'bash', arguments: { command: 'ls' } }])
    .toolResult('bash', 'out')
    .bashExecution('ls', 'out')
    .customRoleMessage('note', 'c')
    .customMessage('reminder', 'm')
    .branchSummary('root', 'b')
    .modelChange('anthropic/claude')
    .label('e0001', 'start').entries;

  it('are every message except tool results, plus custom-message and branch-summary entries', () => {
    expect(entries.map(isValidCutPoint)).toEqual([true, true, false, true, true, true, true, false, false]);
    expect(findValidCutPoints(entries, 1, entries.length)).toEqual([1, 3, 4, 5, 6]);
  });

  it('include custom-role message entries (reference defect 5: upstream only listed hookMessage)', () => {
    expect(isValidCutPoint(entries[4]!)).toBe(true);
  });
});

describe('findTurnStartIndex', () => {
  const entries = session()
    .user('u')
    .assistantToolCalls([{ name: 'read', arguments: { path: 'a' } }])
    .toolResult('read', 'a')
    .assistant('done')
    .customRoleMessage('note', 'c')
    .assistant('ok').entries;

  it('walks back to the nearest user-side message', () => {
    expect(findTurnStartIndex(entries, 3, 0)).toBe(0);
  });

  it('treats a custom-role message as a turn start', () => {
    expect(findTurnStartIndex(entries, 5, 0)).toBe(4);
  });

  it('returns -1 when no turn start lies at or after start', () => {
    expect(findTurnStartIndex(entries, 3, 1)).toBe(-1);
  });
});

describe('findCutPoint', () => {
  describe('given a session under the keep budget', () => {
    const entries = session()
      .modelChange('a/b')
      .user('hello')
      .assistant('hi')
      .user('more')
      .assistant('ok').entries;

    it('keeps everything from the first valid cut point', () => {
      expect(findCutPoint(entries, 0, entries.length, 1000, counter)).toEqual({
        firstKeptEntryIndex: 0,
        turnStartIndex: -1,
        isSplitTurn: false,
      });
    });
  });

  describe('given no valid cut point in the range', () => {
    const entries = session().modelChange('a/b').thinkingLevelChange('high').entries;

    it('returns the start of the range, not split', () => {
      expect(findCutPoint(entries, 1, entries.length, 10, counter)).toEqual({
        firstKeptEntryIndex: 1,
        turnStartIndex: -1,
        isSplitTurn: false,
      });
    });
  });

  describe('given a large tool result where the budget is crossed', () => {
    const entries = session()
      .user(text(10))
      .assistantToolCalls([{ name: 'bash', arguments: { command: 'x' } }])
      .toolResult('bash', text(500))
      .assistant(text(10)).entries;

    it('never cuts at the tool result: it takes the next cut point after it', () => {
      const cut = findCutPoint(entries, 0, entries.length, 100, counter);
      expect(cut.firstKeptEntryIndex).toBe(3);
      expect(cut).toEqual({ firstKeptEntryIndex: 3, turnStartIndex: 0, isSplitTurn: true });
    });
  });

  describe('given a trailing tool result larger than the budget with no cut point after it', () => {
    const entries = session()
      .user(text(10))
      .assistant(text(10))
      .user(text(10))
      .assistantToolCalls([{ name: 'bash', arguments: { command: 'x' } }])
      .toolResult('bash', text(500)).entries;

    it('cuts at the last cut point before it instead of keeping everything', () => {
      expect(findCutPoint(entries, 0, entries.length, 100, counter).firstKeptEntryIndex).toBe(3);
    });
  });

  describe('given metadata just before a user message where the budget is crossed', () => {
    const entries = session()
      .user(text(50))
      .assistant(text(50))
      .modelChange('a/b')
      .thinkingLevelChange('high')
      .label('e0001', 'start')
      .user(text(200))
      .assistant(text(10)).entries;
    const cut = findCutPoint(entries, 0, entries.length, 150, counter);

    it('pulls the metadata into the kept region', () => {
      expect(cut.firstKeptEntryIndex).toBe(2);
    });

    it('does not report a split turn (reference defect 3: upstream reported the previous turn as a prefix)', () => {
      expect(cut.isSplitTurn).toBe(false);
      expect(cut.turnStartIndex).toBe(-1);
    });
  });

  describe.each([
    ['a bash execution', (builder: ReturnType<typeof session>) => builder.bashExecution('make', text(200))],
    [
      'a custom_message entry',
      (builder: ReturnType<typeof session>) => builder.customMessage('ext', text(200)),
    ],
    [
      'a branch_summary entry',
      (builder: ReturnType<typeof session>) => builder.branchSummary('e0002', text(200)),
    ],
    [
      'a custom-role message',
      (builder: ReturnType<typeof session>) => builder.customRoleMessage('ext', text(200)),
    ],
  ])('given the cut lands on %s', (_name, addTurnStart) => {
    const builder = session().user(text(50)).assistant(text(50));
    const entries = addTurnStart(builder).assistant(text(10)).entries;
    const cut = findCutPoint(entries, 0, entries.length, 150, counter);

    it('treats it as a turn start, not a split (reference defect 3)', () => {
      expect(cut).toEqual({ firstKeptEntryIndex: 2, turnStartIndex: -1, isSplitTurn: false });
    });
  });

  describe('given a large custom_message entry at the end', () => {
    const entries = session().user(text(50)).assistant(text(50)).customMessage('ext', text(300)).entries;

    it('counts its tokens towards the kept budget (reference defect 6: upstream kept everything)', () => {
      expect(findCutPoint(entries, 0, entries.length, 200, counter).firstKeptEntryIndex).toBe(2);
    });
  });

  describe('given a large branch summary at the end', () => {
    const entries = session().user(text(50)).assistant(text(50)).branchSummary('e0002', text(300)).entries;

    it('counts its tokens towards the kept budget (reference defect 6)', () => {
      expect(findCutPoint(entries, 0, entries.length, 200, counter).firstKeptEntryIndex).toBe(2);
    });
  });

  describe('given a long turn whose tail crosses the budget', () => {
    const entries = session()
      .user(text(10))
      .assistant(text(10))
      .user(text(10))
      .assistantToolCalls([{ name: 'read', arguments: { path: 'a' } }])
      .toolResult('read', text(300))
      .assistantToolCalls([{ name: 'read', arguments: { path: 'b' } }])
      .toolResult('read', text(300))
      .assistant(text(10)).entries;

    it('reports a split turn starting at the turn’s user message', () => {
      expect(findCutPoint(entries, 0, entries.length, 400, counter)).toEqual({
        firstKeptEntryIndex: 5,
        turnStartIndex: 2,
        isSplitTurn: true,
      });
    });

    it('does not report a split when the turn starts before the range', () => {
      expect(findCutPoint(entries, 3, entries.length, 400, counter)).toEqual({
        firstKeptEntryIndex: 5,
        turnStartIndex: -1,
        isSplitTurn: false,
      });
    });
  });

  describe('given parallel tool calls whose results are interleaved with a custom message', () => {
    const entries = session()
      .user(text(10))
      .assistantToolCalls([
        { name: 'bash', arguments: { command: 'a' }, id: 'call_a' },
        { name: 'bash', arguments: { command: 'b' }, id: 'call_b' },
      ])
      .toolResult('bash', text(5), { toolCallId: 'call_a' })
      .customMessage('steer', text(300))
      .toolResult('bash', text(5), { toolCallId: 'call_b' })
      .assistant(text(5)).entries;

    it('moves the cut back so that no kept result loses its call (reference defect 24)', () => {
      // The budget is crossed at the custom message (index 3); cutting there would keep the
      // result of call_b while summarising the call.
      expect(findCutPoint(entries, 0, entries.length, 100, counter)).toEqual({
        firstKeptEntryIndex: 1,
        turnStartIndex: 0,
        isSplitTurn: true,
      });
    });
  });
});
