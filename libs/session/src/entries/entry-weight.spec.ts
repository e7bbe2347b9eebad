import { session } from '@strata/testing';
import { foldSessionEvents } from '../decider/decide';
import type { SessionEvent } from '../decider/session-events';
import { ENTRY_WEIGHT_CHARACTERS, entryWeight } from './entry-weight';

describe('the weight of an entry in memory bounds', () => {
  describe('given entries of small and large text', () => {
    const built = session()
      .user('hello')
      .assistantToolCalls([{ name: 'read' }])
      .toolResult('read', 'x'.repeat(5 * ENTRY_WEIGHT_CHARACTERS))
      .assistant('done');

    it('when weighed, then a small entry weighs one and a large one one more per whole 2 kB of text', () => {
      const [first, , result] = built.entries;
      expect(entryWeight(first!)).toBe(1);
      expect(entryWeight(result!)).toBe(6);
    });

    it('when text sits deep in arrays and objects, then every string counts, keys included', () => {
      const nested = { a: [{ b: 'x'.repeat(ENTRY_WEIGHT_CHARACTERS - 2) }] };
      expect(entryWeight(nested)).toBe(2);
      expect(entryWeight({ a: [{ b: 'x'.repeat(ENTRY_WEIGHT_CHARACTERS - 3) }] })).toBe(1);
    });

    it('when folded, then the session weighs the sum of its entries, and an earlier state its own', () => {
      const events: SessionEvent[] = [
        { type: 'SessionStarted', data: { header: built.header } },
        ...built.entries.map((entry): SessionEvent => ({ type: 'EntryAppended', data: { entry } })),
      ];
      const state = foldSessionEvents(events);
      const earlier = foldSessionEvents(events.slice(0, 2));
      const sum = built.entries.reduce((total, entry) => total + entryWeight(entry), 0);
      expect(state.status === 'active' && state.weight).toBe(sum);
      expect(earlier.status === 'active' && earlier.weight).toBe(1);
      // a branch from the earlier state weighs from there, not from the newer state's entries
      const branched = foldSessionEvents(
        [{ type: 'EntryAppended', data: { entry: { ...built.entries[0]!, id: 'other', parentId: null } } }],
        earlier,
      );
      expect(branched.status === 'active' && branched.weight).toBe(2);
    });
  });
});
