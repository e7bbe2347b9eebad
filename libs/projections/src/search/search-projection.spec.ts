import { session } from '@strata/testing';
import { projected } from '../testing/document-specification';
import { InMemorySearchStorage } from './in-memory-search-storage';
import { SearchProjection } from './search-projection';
import type { SearchRow } from './search-storage';

/** An in-memory index whose saves wait until released, and fail while `failing` is set. */
class HeldSearchStorage extends InMemorySearchStorage {
  readonly saves: { readonly rows: number; readonly release: () => void }[] = [];
  failing = false;

  override save(rows: readonly SearchRow[], positions: ReadonlyMap<string, bigint>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const release = (): void => {
        if (this.failing) reject(new Error('disk full'));
        else super.save(rows, positions).then(resolve, reject);
      };
      this.saves.push({ rows: rows.length, release });
    });
  }

  async indexedRows(sessionId: string): Promise<number> {
    const found = await this.search({
      tenant: 'acme',
      terms: { words: ['question'], lastIsPrefix: false },
      maxEntries: 1_000,
      maxSessions: 10,
    });
    return found.hits.find((hit) => hit.sessionId === sessionId)?.matchingEntries ?? 0;
  }
}

/** Twelve user entries of one session, each mentioning "question", as projected events. */
function entryEvents(): ReturnType<typeof projected>[] {
  let built = session({ sessionId: 's1' });
  for (let index = 0; index < 12; index += 1) built = built.user(`question number ${index}`);
  return built.entries.map((entry, index) =>
    projected({ type: 'EntryAppended', data: { entry } }, index, { sessionId: 's1' }),
  );
}

/** Lets the promise chains in flight run. */
async function settled(): Promise<void> {
  for (let turn = 0; turn < 10; turn += 1) await Promise.resolve();
}

describe('the search projection writing behind', () => {
  it('writes each full batch while the next fills, and holds no more than two batches', async () => {
    const storage = new HeldSearchStorage();
    const projection = new SearchProjection(storage, { batchRows: 4 });
    const events = entryEvents();

    for (const event of events.slice(0, 7)) await projection.apply(event);
    expect(storage.saves.map((save) => save.rows)).toEqual([4]);

    // the eighth fills the second batch: it waits until the first is written
    let eighthApplied = false;
    const eighth = projection.apply(events[7]!).then(() => (eighthApplied = true));
    await settled();
    expect(eighthApplied).toBe(false);
    storage.saves[0]!.release();
    await eighth;
    expect(storage.saves.map((save) => save.rows)).toEqual([4, 4]);

    for (const event of events.slice(8, 11)) await projection.apply(event);
    const twelfth = projection.apply(events[11]!);
    storage.saves[1]!.release();
    await twelfth;
    const flushed = projection.flush();
    storage.saves[2]!.release();
    await flushed;
    expect(storage.saves.map((save) => save.rows)).toEqual([4, 4, 4]);
    expect(await storage.indexedRows('s1')).toBe(12);
  });

  it('loses nothing when a write behind fails: the next flush writes its rows, and a repeat adds none', async () => {
    const storage = new HeldSearchStorage();
    const projection = new SearchProjection(storage, { batchRows: 4 });
    const events = entryEvents();

    for (const event of events.slice(0, 5)) await projection.apply(event);
    storage.failing = true;
    storage.saves[0]!.release();
    await settled();
    storage.failing = false;
    const flushed = projection.flush();
    await settled();
    storage.saves[1]!.release();
    await flushed;
    for (const event of events.slice(0, 5)) await projection.apply(event);
    await projection.flush();

    expect(storage.saves.map((save) => save.rows)).toEqual([4, 5]);
    expect(await storage.indexedRows('s1')).toBe(5);
  });

  it('keeps an erased session erased when the write behind that held its rows fails', async () => {
    const storage = new HeldSearchStorage();
    const projection = new SearchProjection(storage, { batchRows: 4 });
    const events = entryEvents();
    for (const event of events.slice(0, 4)) await projection.apply(event);

    const erased = projection.erase('s1');
    storage.failing = true;
    storage.saves[0]!.release();
    await erased;
    storage.failing = false;
    await projection.flush();

    expect(storage.saves.map((save) => save.rows)).toEqual([4]);
    expect(await storage.indexedRows('s1')).toBe(0);
  });
});
