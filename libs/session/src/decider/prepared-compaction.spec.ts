import { session } from '@strata/testing';
import { foldSessionEvents } from './decide';
import type { SessionEvent } from './session-events';
import { isStale } from './prepared-compaction';

// e0001 user ─ e0002 assistant ─ e0003 user ─ e0004 assistant ─ e0005 user
//                              └ e0006 user (another branch)
const builder = session().user('one').assistant('two').user('three').assistant('four').user('five');
builder.branchFrom('e0002').user('elsewhere');
const history = (leafId: string, extra: readonly SessionEvent[] = []): SessionEvent[] => [
  { type: 'SessionStarted', data: { header: builder.header } },
  ...builder.entries.map((entry): SessionEvent => ({ type: 'EntryAppended', data: { entry } })),
  { type: 'LeafMoved', data: { leafId, previousLeafId: 'e0006' } },
  ...extra,
];
const preparedFresh = { leafId: 'e0005', firstKeptEntryId: 'e0003', previousCompactionId: undefined };

describe('a compaction prepared earlier', () => {
  describe('given the leaf is where it was prepared', () => {
    it('when nothing changed, then it is not stale', () => {
      expect(isStale(foldSessionEvents(history('e0005')), preparedFresh)).toBe(false);
    });
  });

  describe('given the leaf moved to a branch without its first kept entry', () => {
    it('when it is written, then it is stale', () => {
      expect(isStale(foldSessionEvents(history('e0006')), preparedFresh)).toBe(true);
    });
  });

  describe('given the leaf moved away and back before it is written', () => {
    it('when it is written, then it fits: the path is the one it was prepared on', () => {
      const away: SessionEvent = { type: 'LeafMoved', data: { leafId: 'e0006', previousLeafId: 'e0005' } };
      const back: SessionEvent = { type: 'LeafMoved', data: { leafId: 'e0005', previousLeafId: 'e0006' } };
      expect(isStale(foldSessionEvents(history('e0005', [away, back])), preparedFresh)).toBe(false);
    });
  });

  describe('given entries appended after the leaf it was prepared at', () => {
    it('when it is written, then it is stale: the leaf moved on (issue 13)', () => {
      const appended: SessionEvent = {
        type: 'EntryAppended',
        data: { entry: { ...builder.entries[4]!, id: 'e0007', parentId: 'e0005' } },
      };
      expect(isStale(foldSessionEvents(history('e0005', [appended])), preparedFresh)).toBe(true);
    });
  });

  describe('given another compaction was written on the path meanwhile', () => {
    const newer: SessionEvent = {
      type: 'EntryAppended',
      data: {
        entry: {
          type: 'compaction',
          id: 'k1',
          parentId: 'e0005',
          timestamp: '2026-01-01T00:00:00.000Z',
          summary: 'S',
          firstKeptEntryId: 'e0003',
          tokensBefore: 10,
        },
      },
    };

    it('when it was prepared against no compaction, then it is stale', () => {
      expect(isStale(foldSessionEvents(history('e0005', [newer])), preparedFresh)).toBe(true);
    });

    it('when it was prepared against that very compaction, then it fits', () => {
      const state = foldSessionEvents(history('e0005', [newer]));
      expect(isStale(state, { leafId: 'k1', firstKeptEntryId: 'e0003', previousCompactionId: 'k1' })).toBe(
        false,
      );
    });
  });

  describe('given a session that was never started', () => {
    it('when it is written, then it is stale', () => {
      expect(isStale(foldSessionEvents([]), preparedFresh)).toBe(true);
    });
  });
});
