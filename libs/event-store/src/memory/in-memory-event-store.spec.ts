import { describeCheckpointStoreContract, describeEventStoreContract } from '../contract';
import { InMemoryCheckpointStore } from './in-memory-checkpoint-store';
import { InMemoryEventStore } from './in-memory-event-store';

describeEventStoreContract('InMemoryEventStore', (options = {}) => {
  const store = new InMemoryEventStore({ pageSize: options.pageSize, pageBytes: options.pageBytes });
  return Promise.resolve({ store, cleanup: () => store.close() });
});

describeCheckpointStoreContract('InMemoryCheckpointStore', () =>
  Promise.resolve({ checkpoints: new InMemoryCheckpointStore(), cleanup: () => Promise.resolve() }),
);

describe('InMemoryEventStore', () => {
  describe('given a recorded event', () => {
    it('hands out frozen data, so a reader cannot change what others read', async () => {
      const store = new InMemoryEventStore({ clock: () => new Date('2026-01-02T03:04:05.000Z') });
      const data = { nested: { text: 'original' } };
      await store.appendToStream('s', [{ id: 'e1', type: 't', data }]);
      data.nested.text = 'changed by the writer afterwards';
      const [event] = await collectAll(store.readStream('s'));
      expect(event!.data).toEqual({ nested: { text: 'original' } });
      expect(Object.isFrozen(event!.data)).toBe(true);
      expect(event!.createdAt).toBe('2026-01-02T03:04:05.000Z');
    });
  });
});

async function collectAll<Item>(iterable: AsyncIterable<Item>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}
