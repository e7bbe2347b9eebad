// Contract: reading one stream (directions, inclusive start revision, maxCount, missing
// streams) and the global log (position order, inclusive start position, filters).
import type { EventFilter, EventToAppend } from '../port';
import { anEvent, collect, idsOf, newScope, someEvents, type ContractContext } from './contract-support';

export function describeReadContract({ store }: ContractContext): void {
  describe('reading a stream', () => {
    describe('given a stream that does not exist', () => {
      it('yields nothing in either direction and has no revision', async () => {
        const streamId = newScope().stream('missing');
        expect(await collect(store().readStream(streamId))).toEqual([]);
        expect(await collect(store().readStream(streamId, { direction: 'backwards' }))).toEqual([]);
        expect(await store().streamRevision(streamId)).toBeNull();
      });
    });

    describe('given a stream of five events', () => {
      async function fiveEvents(): Promise<{ streamId: string; ids: string[] }> {
        const streamId = newScope().stream('five');
        const events = someEvents(5);
        await store().appendToStream(streamId, events.slice(0, 2));
        await store().appendToStream(streamId, events.slice(2));
        return { streamId, ids: idsOf(events) };
      }

      it('reads forwards from the start and backwards from the end', async () => {
        const { streamId, ids } = await fiveEvents();
        expect(idsOf(await collect(store().readStream(streamId)))).toEqual(ids);
        expect(idsOf(await collect(store().readStream(streamId, { direction: 'backwards' })))).toEqual(
          [...ids].reverse(),
        );
        expect(await store().streamRevision(streamId)).toBe(4n);
      });

      it('starts at fromRevision inclusively, in both directions', async () => {
        const { streamId, ids } = await fiveEvents();
        const forwards = await collect(store().readStream(streamId, { fromRevision: 2n }));
        const backwards = await collect(
          store().readStream(streamId, { direction: 'backwards', fromRevision: 2n }),
        );
        expect(idsOf(forwards)).toEqual(ids.slice(2));
        expect(idsOf(backwards)).toEqual(ids.slice(0, 3).reverse());
        expect(await collect(store().readStream(streamId, { fromRevision: 5n }))).toEqual([]);
      });

      it('stops after maxCount events', async () => {
        const { streamId, ids } = await fiveEvents();
        const forwards = await collect(store().readStream(streamId, { fromRevision: 1n, maxCount: 2 }));
        const backwards = await collect(
          store().readStream(streamId, { direction: 'backwards', maxCount: 1 }),
        );
        expect(idsOf(forwards)).toEqual(ids.slice(1, 3));
        expect(idsOf(backwards)).toEqual([ids[4]]);
      });
    });
  });

  describe('reading all events', () => {
    async function interleavedStreams(): Promise<{ prefix: string; appended: EventToAppend[] }> {
      const scope = newScope();
      const appended: EventToAppend[] = [];
      const plan: [string, EventToAppend][] = [
        ['chat-1', anEvent('message.user')],
        ['chat-2', anEvent('message.assistant')],
        ['audit-1', anEvent('compaction.completed')],
        ['chat-1', anEvent('message.assistant')],
        ['chat-2', anEvent('label')],
        ['audit-1', anEvent('compaction.failed')],
      ];
      for (const [name, event] of plan) {
        await store().appendToStream(scope.stream(name), [event]);
        appended.push(event);
      }
      return { prefix: scope.prefix, appended };
    }

    async function readIds(filter: EventFilter, extra: object = {}): Promise<string[]> {
      return idsOf(await collect(store().readAll({ filter, ...extra })));
    }

    it('returns events in strictly increasing position order, across streams, as appended', async () => {
      const { prefix, appended } = await interleavedStreams();
      const recorded = await collect(store().readAll({ filter: { streamPrefixes: [prefix] } }));
      expect(idsOf(recorded)).toEqual(idsOf(appended));
      const everything = await collect(store().readAll());
      const positions = everything.map((event) => event.position);
      positions.slice(1).forEach((position, index) => expect(position > positions[index]!).toBe(true));
      expect(idsOf(everything.filter((event) => event.streamId.startsWith(prefix)))).toEqual(idsOf(appended));
    });

    it('reads backwards from the end', async () => {
      const { prefix, appended } = await interleavedStreams();
      const ids = await readIds({ streamPrefixes: [prefix] }, { direction: 'backwards' });
      expect(ids).toEqual(idsOf(appended).reverse());
    });

    it('starts at fromPosition inclusively and stops after maxCount matching events', async () => {
      const { prefix, appended } = await interleavedStreams();
      const filter = { streamPrefixes: [prefix] };
      const recorded = await collect(store().readAll({ filter }));
      const third = recorded[2]!.position;
      expect(await readIds(filter, { fromPosition: third })).toEqual(idsOf(appended.slice(2)));
      expect(await readIds(filter, { fromPosition: third, direction: 'backwards' })).toEqual(
        idsOf(appended.slice(0, 3)).reverse(),
      );
      expect(await readIds(filter, { fromPosition: third, maxCount: 2 })).toEqual(
        idsOf(appended.slice(2, 4)),
      );
    });

    it('filters by exact event type, by type prefix and by stream prefix, all at once', async () => {
      const { prefix, appended } = await interleavedStreams();
      const ids = idsOf(appended);
      const ours = [prefix];
      expect(await readIds({ streamPrefixes: ours, eventTypes: ['label'] })).toEqual([ids[4]]);
      expect(await readIds({ streamPrefixes: ours, eventTypes: ['compaction.*'] })).toEqual([ids[2], ids[5]]);
      expect(await readIds({ streamPrefixes: ours, eventTypes: ['label', 'message.a*'] })).toEqual([
        ids[1],
        ids[3],
        ids[4],
      ]);
      expect(await readIds({ streamPrefixes: [`${prefix}chat-`], eventTypes: ['message.*'] })).toEqual(
        ids.slice(0, 4).filter((_, index) => index !== 2),
      );
      expect(await readIds({ streamPrefixes: [`${prefix}chat-1`, `${prefix}audit`] })).toEqual([
        ids[0],
        ids[2],
        ids[3],
        ids[5],
      ]);
      expect(
        await readIds(
          { streamPrefixes: ours, eventTypes: ['message.*'] },
          { maxCount: 2, direction: 'backwards' },
        ),
      ).toEqual([ids[3], ids[1]]);
    });
  });
}
