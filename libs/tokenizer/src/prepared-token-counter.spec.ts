import { serializeConversation, type LlmMessage, type TokenCounter } from '@strata/session';
import { pseudoRandomLetters } from '@strata/testing';
import { createPreparedTokenCounter, slicedCountingOf } from './create-token-counter';
import { countO200kTokens, o200kTokenCounter } from './o200k-token-counter';
import {
  LONG_TEXT_CHARACTERS,
  countLongTexts,
  longTexts,
  type PreparedTokenCounter,
} from './prepared-token-counter';
import { TokenCountCache, textKeysHashed } from './token-count-cache';

/** Counts the event loop's turns (timer callbacks) while `work` runs. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  const timer = setInterval(() => {
    turns += 1;
  }, 1);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return turns;
}

const user = (text: string): LlmMessage => ({ role: 'user', content: text, timestamp: 0 });

describe('a prepared o200k counter', () => {
  let counter: PreparedTokenCounter;

  beforeEach(() => {
    counter = createPreparedTokenCounter('o200k');
  });

  it('counts as the plain o200k counter, images included', () => {
    const pieces = ['hello world', 'x'.repeat(LONG_TEXT_CHARACTERS * 3), 'ab '.repeat(5000)];
    expect(counter.countPieces(pieces, 2)).toBe(o200kTokenCounter.countPieces(pieces, 2));
    expect(counter.name).toBe('o200k');
  });

  it('counts a long text it was not given ahead on the spot, once, and keeps the count', () => {
    const long = 'q'.repeat(50_000);
    expect(counter.isReady([long])).toBe(false);
    expect(counter.countPieces([long], 0)).toBe(countO200kTokens(long));
    expect(counter.countPieces([long], 0)).toBe(countO200kTokens(long));
    expect(counter.stats()).toMatchObject({ countedOnTheSpot: 1, keptCounts: 1 });
    expect(counter.isReady([long])).toBe(true);
  });

  it('counts ahead in slices: timers run meanwhile, and the synchronous count then finds it', async () => {
    const long = pseudoRandomLetters(1_000_000);
    const turns = await turnsDuring(() => counter.countAhead([long, 'short']));
    expect(turns).toBeGreaterThan(2);
    expect(counter.isReady([long, 'short'])).toBe(true);
    expect(counter.countPieces([long], 0)).toBe(countO200kTokens(long));
    expect(counter.stats()).toMatchObject({ countedAhead: 1, countedOnTheSpot: 0 });
  });

  it('takes the counts made elsewhere of the same long texts, and counts none of them again', () => {
    const texts = [pseudoRandomLetters(20_000, 3), 'short', pseudoRandomLetters(LONG_TEXT_CHARACTERS, 4)];
    const counted = countLongTexts(slicedCountingOf('o200k')!, texts);
    expect(longTexts(texts)).toEqual([texts[0], texts[2]]);
    expect(counted.map((count) => count.tokens)).toEqual([
      countO200kTokens(texts[0]!),
      countO200kTokens(texts[2]!),
    ]);
    const hashedBefore = textKeysHashed();
    counter.rememberCounted(texts, counted);
    expect(counter.isReady(texts)).toBe(true);
    expect(counter.countPieces(texts, 0)).toBe(o200kTokenCounter.countPieces(texts, 0));
    expect(counter.stats()).toMatchObject({ countedAhead: 2, countedOnTheSpot: 0 });
    // the keys came with the counts: the texts were not hashed again here
    expect(textKeysHashed()).toBe(hashedBefore);
  });

  it('takes no counts that do not pair with the long texts given', () => {
    const texts = [pseudoRandomLetters(20_000, 5)];
    counter.rememberCounted(texts, [
      ...countLongTexts(slicedCountingOf('o200k')!, texts),
      { key: 'k', tokens: 1 },
    ]);
    expect(counter.isReady(texts)).toBe(false);
    expect(slicedCountingOf('chars4')).toBeUndefined();
  });

  it('whereas a count at once lets no timer run (the blocking this replaces)', async () => {
    const turns = await turnsDuring(async () => {
      await Promise.resolve();
      countO200kTokens(pseudoRandomLetters(1_000_000, 2));
    });
    expect(turns).toBe(0);
  });

  it('counts a text asked for by two requests at once only once', async () => {
    const long = 'w'.repeat(200_000);
    await Promise.all([counter.countAhead([long]), counter.countAhead([long])]);
    expect(counter.stats().countedAhead).toBe(1);
  });

  describe('running a pure computation when its counts are ready', () => {
    // The newest message alone is over the budget, so the transcript cuts it by a binary search of
    // counts: each run asks for a head that depends on the counts of the run before.
    const messages = [user('Start here.'), user(`Blob: ${pseudoRandomLetters(100_000)}`)];
    const fitted = (tokenCounter: TokenCounter): string =>
      serializeConversation(messages, { maxTokens: 5_000, counter: tokenCounter });

    it('gives what the computation gives with the plain counter, without counting on the spot', async () => {
      const expected = fitted(o200kTokenCounter);
      const turns = await turnsDuring(async () => {
        expect(await counter.whenCounted(fitted)).toBe(expected);
      });
      expect(turns).toBeGreaterThan(0);
      expect(counter.stats().countedOnTheSpot).toBe(0);
      expect(counter.stats().preparationRounds).toBeGreaterThan(2);
    });

    it('counts many short texts in slices as well', async () => {
      const texts = Array.from(
        { length: 30_000 },
        (_, index) => `entry ${index}: ${'lorem ipsum '.repeat(8)}`,
      );
      const total = (tokenCounter: TokenCounter): number =>
        texts.reduce((sum, text) => sum + tokenCounter.countPieces([text], 0), 0);
      const expected = total(o200kTokenCounter);
      const turns = await turnsDuring(async () => {
        expect(await counter.whenCounted(total)).toBe(expected);
      });
      expect(turns).toBeGreaterThan(0);
    });

    it('returns the final run whatever the runs on estimates did, and rethrows what that run throws', async () => {
      const long = 'z'.repeat(40_000);
      const exact = countO200kTokens(long);
      const strict = (tokenCounter: TokenCounter): number => {
        const tokens = tokenCounter.countPieces([long], 0);
        if (tokens !== exact) throw new Error('an estimate');
        return tokens;
      };
      await expect(counter.whenCounted(strict)).resolves.toBe(exact);
      await expect(
        counter.whenCounted(() => {
          throw new Error('always');
        }),
      ).rejects.toThrow('always');
    });
  });
});

describe('a prepared chars/4 counter', () => {
  it('is always ready and runs a computation once', async () => {
    const counter = createPreparedTokenCounter('chars4');
    let runs = 0;
    const result = await counter.whenCounted((tokenCounter) => {
      runs += 1;
      return tokenCounter.countPieces(['x'.repeat(100_000)], 0);
    });
    expect({ result, runs, ready: counter.isReady(['y'.repeat(100_000)]) }).toEqual({
      result: 25_000,
      runs: 1,
      ready: true,
    });
  });
});

describe('the kept counts', () => {
  it('drop the least recently used beyond their capacity', () => {
    const cache = new TokenCountCache(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.size]).toEqual([1, undefined, 3, 2]);
  });
});
