// The saver of the context projection's token counts: counts wait in memory and are written
// behind the work (a batch at once, smaller ones after a short delay), a failing storage costs
// only the counts, closing writes what waits, and an erased session's waiting counts never land.
import { waitUntil } from '@strata/testing';
import { SAVE_BATCH_ROWS, SAVE_DELAY_MS, TokenCountSaver } from './token-count-saver';
import {
  InMemoryTokenCountStorage,
  storedCountsKey,
  type StoredTokenCount,
  type TokenCountRow,
} from './token-count-storage';

function counts(count: number, prefix = 'h'): StoredTokenCount[] {
  return Array.from({ length: count }, (_, index) => ({
    eventHash: `${prefix}${index}`,
    characters: index * 10,
    tokens: index,
  }));
}

const KEY = storedCountsKey('o200k');

describe('the token count saver', () => {
  it('writes a small batch after its delay, in one save', async () => {
    const storage = new InMemoryTokenCountStorage();
    const saves: number[] = [];
    const save = storage.save.bind(storage);
    storage.save = (rows: readonly TokenCountRow[]) => {
      saves.push(rows.length);
      return save(rows);
    };
    const saver = new TokenCountSaver(storage, 'o200k');
    saver.collect('s1', counts(3));
    saver.collect('s2', counts(2));
    expect(saves).toEqual([]);
    await waitUntil(() => saver.stats().saved === 5, 'the five counts saved', {
      timeoutMs: SAVE_DELAY_MS * 20,
    });
    expect(saves).toEqual([5]);
    expect((await storage.load('s1', KEY)).get('h2')).toEqual({ eventHash: 'h2', characters: 20, tokens: 2 });
    await saver.close();
  });

  it('writes a full batch at once, behind the work', async () => {
    const storage = new InMemoryTokenCountStorage();
    const saver = new TokenCountSaver(storage, 'o200k');
    saver.collect('small', counts(1));
    expect(saver.stats().unsaved).toBe(1);
    saver.collect('big', counts(SAVE_BATCH_ROWS - 1));
    // Taken for writing in the same turn, not after the delay.
    expect(saver.stats().unsaved).toBe(0);
    expect((await storage.load('big', KEY)).size).toBe(SAVE_BATCH_ROWS - 1);
    await saver.close();
    expect(saver.stats().saved).toBe(SAVE_BATCH_ROWS);
  });

  it('counts a failed load or save and goes on', async () => {
    const storage = new InMemoryTokenCountStorage();
    storage.save = () => Promise.reject(new Error('disk full'));
    storage.load = () => Promise.reject(new Error('no such table'));
    const saver = new TokenCountSaver(storage, 'o200k');
    await expect(saver.load('s1')).resolves.toBeUndefined();
    saver.collect('s1', counts(2));
    await saver.close();
    expect(saver.stats()).toEqual({ saved: 0, unsaved: 0, dropped: 0, failures: 2 });
  });

  it('writes what waits when closed, and keeps nothing after', async () => {
    const storage = new InMemoryTokenCountStorage();
    const saver = new TokenCountSaver(storage, 'o200k');
    saver.collect('s1', counts(4));
    await saver.close();
    expect((await storage.load('s1', KEY)).size).toBe(4);
    saver.collect('s1', counts(4, 'late'));
    expect(saver.stats()).toMatchObject({ saved: 4, unsaved: 0 });
  });

  it("drops an erased session's waiting counts and deletes its stored ones", async () => {
    const storage = new InMemoryTokenCountStorage();
    const saver = new TokenCountSaver(storage, 'o200k');
    saver.collect('erased', counts(3));
    await saver.close();
    const reopened = new TokenCountSaver(storage, 'o200k');
    reopened.collect('erased', counts(2, 'more'));
    reopened.collect('kept', counts(2));
    await reopened.forget('erased');
    await reopened.close();
    expect((await storage.load('erased', KEY)).size).toBe(0);
    expect((await storage.load('kept', KEY)).size).toBe(2);
  });
});
