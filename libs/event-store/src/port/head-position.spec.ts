import { InMemoryEventStore } from '../memory/in-memory-event-store';
import { SqliteEventStore } from '../sqlite';
import { headPosition } from './head-position';

describe.each([
  ['in memory', () => new InMemoryEventStore()],
  ['SQLite (in memory)', () => new SqliteEventStore({ filename: ':memory:' })],
])('the head position of a store %s', (_name, open) => {
  it('is null while the store is empty, then the last event’s, or the last the filter lets through', async () => {
    const store = open();
    try {
      expect(await headPosition(store)).toBeNull();
      await store.appendToStream('session-a', [{ id: 'a1', type: 'T', data: {} }]);
      const { position: ofSession } = await store.appendToStream('session-a', [
        { id: 'a2', type: 'T', data: {} },
      ]);
      await store.appendToStream('other-b', [{ id: 'b1', type: 'T', data: {} }]);
      const last = await headPosition(store);
      expect(last).not.toBeNull();
      expect(last!).toBeGreaterThan(ofSession);
      expect(await headPosition(store, { streamPrefixes: ['session-'] })).toBe(ofSession);
      expect(await headPosition(store, { streamPrefixes: ['nothing-'] })).toBeNull();
    } finally {
      await store.close();
    }
  });
});
