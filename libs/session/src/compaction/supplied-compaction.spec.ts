import { session } from '@strata/testing';
import { hookCompactionProblem } from './supplied-compaction';

describe('a compaction supplied by a hook (reference defect 23)', () => {
  describe('given a path of user, tool call, tool result, answer', () => {
    const path = session()
      .user('go')
      .assistantToolCalls([{ name: 'read' }])
      .toolResult('read', 'ok')
      .assistant('done').entries;

    it('when it keeps from the answer with a whole token count, then it can be used', () => {
      expect(hookCompactionProblem({ summary: 'S', firstKeptEntryId: 'e0004', tokensBefore: 3 }, path)).toBe(
        undefined,
      );
    });

    it.each([
      [
        { summary: 'S', firstKeptEntryId: 'e0003', tokensBefore: 3 },
        'first kept entry e0003 is a tool result',
      ],
      [{ summary: 'S', firstKeptEntryId: 'nope', tokensBefore: 3 }, 'is not on the compacted path'],
      [{ summary: 'S', firstKeptEntryId: 'e0004', tokensBefore: -1 }, 'is not a non-negative integer'],
      [{ summary: 'S', firstKeptEntryId: 'e0004', tokensBefore: 2.5 }, 'is not a non-negative integer'],
      [{ summary: 42, firstKeptEntryId: 'e0004', tokensBefore: 3 }, 'its summary is not text'],
    ])('when it is %o, then it is refused: %s', (compaction, problem) => {
      expect(hookCompactionProblem(compaction, path)).toContain(problem);
    });
  });
});
