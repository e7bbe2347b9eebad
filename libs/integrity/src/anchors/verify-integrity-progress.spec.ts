// What a whole-store verification tells while it reads: each stream as it starts, every
// `progressEvents` events, and the start of the checks against the store's records. Each stream
// holds three sealed events (as an imported session of a header and two messages would).
import { appendChained } from '../testing/append-chained';
import { SqliteEventStore } from '@strata/event-store';
import { verifyStoreIntegrity, type StoreIntegrityProgress } from './verify-integrity';

describe('verifyStoreIntegrity progress', () => {
  it('tells each stream as it starts, every progressEvents events, then the checks', async () => {
    const store = new SqliteEventStore({ filename: ':memory:' });
    try {
      for (const sessionId of ['progress-1', 'progress-2']) {
        await appendChained(
          store,
          `session-${sessionId}`,
          ['header', 'One', 'Two'].map((text, index) => ({
            id: `${sessionId}-${index}`,
            type: 'message',
            data: { text },
          })),
        );
      }
      const told: StoreIntegrityProgress[] = [];
      const result = await verifyStoreIntegrity(store, {
        onProgress: (progress) => told.push(progress),
        progressEvents: 2,
      });
      expect(result).toMatchObject({ ok: true, streams: 2, events: 6 });
      expect(told).toEqual([
        { kind: 'stream', streamId: 'session-progress-1', streams: 1, events: 0 },
        { kind: 'events', streams: 1, events: 2 },
        { kind: 'stream', streamId: 'session-progress-2', streams: 2, events: 3 },
        { kind: 'events', streams: 2, events: 4 },
        { kind: 'events', streams: 2, events: 6 },
        { kind: 'checking', streams: 2, events: 6 },
      ]);
    } finally {
      await store.close();
    }
  });
});
