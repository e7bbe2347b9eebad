import { derivedEventId, isDerivedEventId } from './derived-event-id';
import { newEventId } from '../ids/uuidv7';
import { FoldedStreamCache, SeenDerivedIds, type CachedFold, type FoldOwner } from './folded-stream-cache';

const owner: FoldOwner = { decider: {}, parseEvent: (event) => event };

function foldAt(revision: bigint, seenIds = new SeenDerivedIds()): CachedFold<string> {
  return {
    state: `state at ${revision}`,
    end: { revision, id: `event-${revision}`, position: revision, hash: undefined },
    seenIds,
  };
}

describe('FoldedStreamCache', () => {
  describe('given more streams than it keeps', () => {
    it('drops the least recently used stream first', () => {
      const cache = new FoldedStreamCache<string>({ maxStreams: 2 });
      cache.remember('a', owner, foldAt(0n));
      cache.remember('b', owner, foldAt(0n));
      expect(cache.get('a', owner)).toBeDefined();
      cache.remember('c', owner, foldAt(0n));
      expect(cache.get('b', owner)).toBeUndefined();
      expect(cache.get('a', owner)).toBeDefined();
      expect(cache.get('c', owner)).toBeDefined();
      expect(cache.size).toBe(2);
    });

    it('drops the least recently used streams while the folds weigh more than the bound', () => {
      const cache = new FoldedStreamCache<number>({ maxWeight: 10, weightOf: (state) => state });
      const weighing = (state: number): CachedFold<number> => ({ ...foldAt(0n), state });
      cache.remember('a', owner, weighing(4));
      cache.remember('b', owner, weighing(4));
      expect(cache.get('a', owner)).toBeDefined();
      cache.remember('c', owner, weighing(5));
      expect(cache.get('b', owner)).toBeUndefined();
      expect([cache.size, cache.weight]).toEqual([2, 9]);
      cache.remember('d', owner, weighing(11));
      expect(cache.get('d', owner)).toBeUndefined();
      expect([cache.size, cache.weight]).toEqual([2, 9]);
    });

    it('counts a fold weighing nothing as one (lru-cache weighs in positive integers)', () => {
      const cache = new FoldedStreamCache<number>({ maxWeight: 2, weightOf: (state) => state });
      const weighing = (state: number): CachedFold<number> => ({ ...foldAt(0n), state });
      cache.remember('a', owner, weighing(0));
      cache.remember('b', owner, weighing(0));
      cache.remember('c', owner, weighing(0));
      expect([cache.size, cache.weight]).toEqual([2, 2]);
      expect(cache.get('a', owner)).toBeUndefined();
    });

    it('refuses a bound below one', () => {
      expect(() => new FoldedStreamCache({ maxStreams: 0 })).toThrow(RangeError);
    });
  });

  describe('given a fold of one incarnation of a stream', () => {
    it('keeps a later fold of the same incarnation over an earlier one remembered after it', () => {
      const cache = new FoldedStreamCache<string>();
      const seenIds = new SeenDerivedIds();
      cache.remember('a', owner, foldAt(5n, seenIds));
      cache.remember('a', owner, foldAt(3n, seenIds));
      expect(cache.get('a', owner)?.end.revision).toBe(5n);
    });

    it('takes the fold of another incarnation (the stream read anew), whatever its revision', () => {
      const cache = new FoldedStreamCache<string>();
      cache.remember('a', owner, foldAt(5n));
      cache.remember('a', owner, foldAt(3n));
      expect(cache.get('a', owner)?.end.revision).toBe(3n);
    });

    it('forgets only the fold it is told to forget', () => {
      const cache = new FoldedStreamCache<string>();
      const stale = foldAt(1n);
      cache.remember('a', owner, foldAt(2n));
      cache.forget('a', stale);
      expect(cache.get('a', owner)).toBeDefined();
      cache.forget('a');
      expect(cache.get('a', owner)).toBeUndefined();
    });
  });

  describe('given a fold made by another decider or parser', () => {
    it('does not hand it out', () => {
      const cache = new FoldedStreamCache<string>();
      cache.remember('a', owner, foldAt(0n));
      expect(cache.get('a', { ...owner, decider: {} })).toBeUndefined();
      expect(cache.get('a', { ...owner, parseEvent: (event) => event })).toBeUndefined();
      expect(cache.get('a', owner)).toBeDefined();
    });
  });
});

describe('SeenDerivedIds', () => {
  it('sees a derived id only from the revision it was recorded at', () => {
    const seen = new SeenDerivedIds();
    const id = derivedEventId('command', 0);
    seen.record(id, 4n);
    expect(seen.seenBy(id, 3n)).toBe(false);
    expect(seen.seenBy(id, 4n)).toBe(true);
    expect(seen.seenBy(id, 9n)).toBe(true);
  });

  it('keeps no other ids (a derived id can never equal them)', () => {
    const seen = new SeenDerivedIds();
    const id = newEventId();
    expect(isDerivedEventId(id)).toBe(false);
    seen.record(id, 0n);
    expect(seen.seenBy(id, 0n)).toBe(false);
  });
});
