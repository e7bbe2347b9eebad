// Contract: catch-up subscriptions (history, one caught_up, then live; exclusive start
// positions; filters; resuming from a stored checkpoint exactly once; close).
import { InMemoryCheckpointStore } from '../memory/in-memory-checkpoint-store';
import type { SubscribeOptions } from '../port';
import {
  anEvent,
  eventsOf,
  idsOf,
  newScope,
  someEvents,
  SubscriptionReader,
  type ContractContext,
} from './contract-support';

export function describeSubscriptionContract({ store, features }: ContractContext): void {
  function subscribe(options: SubscribeOptions): SubscriptionReader {
    return new SubscriptionReader(store().subscribe(options), features.messageTimeoutMs);
  }

  describe('subscribing', () => {
    it('delivers the history, then caught_up once, then live events, each exactly once in order', async () => {
      const scope = newScope();
      const history = someEvents(3);
      await store().appendToStream(scope.stream('a'), history.slice(0, 2));
      await store().appendToStream(scope.stream('b'), history.slice(2));
      const reader = subscribe({ filter: { streamPrefixes: [scope.prefix] } });
      try {
        const beforeCaughtUp = await reader.untilCaughtUp();
        expect(beforeCaughtUp.map((message) => message.kind)).toEqual([
          'event',
          'event',
          'event',
          'caught_up',
        ]);
        expect(idsOf(eventsOf(beforeCaughtUp))).toEqual(idsOf(history));
        const caughtUp = beforeCaughtUp[3]!;
        if (caughtUp.kind === 'caught_up' && caughtUp.position !== null) {
          expect(caughtUp.position >= eventsOf(beforeCaughtUp)[2]!.position).toBe(true);
        }
        const live = [anEvent('live'), anEvent('live')];
        await store().appendToStream(scope.stream('a'), [live[0]!]);
        await store().appendToStream(scope.stream('c'), [live[1]!]);
        expect(idsOf(await reader.events(2))).toEqual(idsOf(live));
      } finally {
        await reader.close();
      }
    });

    it('from the end, delivers caught_up and then only events appended afterwards', async () => {
      const scope = newScope();
      await store().appendToStream(scope.stream('a'), someEvents(2));
      const reader = subscribe({ fromPosition: 'end', filter: { streamPrefixes: [scope.prefix] } });
      try {
        expect(eventsOf(await reader.untilCaughtUp())).toEqual([]);
        const later = anEvent('later');
        await store().appendToStream(scope.stream('a'), [later]);
        expect(idsOf(await reader.events(1))).toEqual([later.id]);
      } finally {
        await reader.close();
      }
    });

    it('treats fromPosition as exclusive', async () => {
      const scope = newScope();
      const events = someEvents(4);
      await store().appendToStream(scope.stream('a'), events);
      const reader = subscribe({ filter: { streamPrefixes: [scope.prefix] } });
      const all = eventsOf(await reader.untilCaughtUp());
      await reader.close();
      const resumed = subscribe({
        fromPosition: all[1]!.position,
        filter: { streamPrefixes: [scope.prefix] },
      });
      try {
        expect(idsOf(eventsOf(await resumed.untilCaughtUp()))).toEqual(idsOf(events.slice(2)));
      } finally {
        await resumed.close();
      }
    });

    it('filters history and live events by event type and stream prefix', async () => {
      const scope = newScope();
      const wanted = [anEvent('compaction.completed'), anEvent('compaction.failed'), anEvent('label')];
      await store().appendToStream(scope.stream('session-1'), [wanted[0]!, anEvent('message')]);
      await store().appendToStream(scope.stream('other-1'), [anEvent('compaction.completed')]);
      const reader = subscribe({
        filter: { eventTypes: ['compaction.*', 'label'], streamPrefixes: [scope.stream('session-')] },
      });
      try {
        expect(idsOf(eventsOf(await reader.untilCaughtUp()))).toEqual([wanted[0]!.id]);
        await store().appendToStream(scope.stream('other-1'), [anEvent('label')]);
        await store().appendToStream(scope.stream('session-2'), [anEvent('message'), wanted[1]!]);
        await store().appendToStream(scope.stream('session-1'), [wanted[2]!]);
        expect(idsOf(await reader.events(2))).toEqual(idsOf(wanted.slice(1)));
      } finally {
        await reader.close();
      }
    });

    it('resumes from a stored checkpoint without losing or repeating an event', async () => {
      const scope = newScope();
      const checkpoints = new InMemoryCheckpointStore();
      const filter = { streamPrefixes: [scope.prefix] };
      const events = someEvents(7);
      await store().appendToStream(scope.stream('a'), events.slice(0, 5));
      const first = subscribe({ filter });
      const handled = await first.events(3);
      await checkpoints.store('projector', handled[2]!.position);
      await first.close();
      await store().appendToStream(scope.stream('b'), events.slice(5));
      const checkpoint = await checkpoints.load('projector');
      const second = subscribe({ fromPosition: checkpoint ?? 'start', filter });
      try {
        const rest = await second.events(4);
        expect(idsOf([...handled, ...rest])).toEqual(idsOf(events));
        const live = anEvent();
        await store().appendToStream(scope.stream('a'), [live]);
        const [next] = await second.events(1);
        expect(next!.id).toBe(live.id);
      } finally {
        await second.close();
      }
    });

    it('gives every subscriber every event', async () => {
      const scope = newScope();
      const filter = { streamPrefixes: [scope.prefix] };
      const readers = [subscribe({ filter }), subscribe({ filter })];
      try {
        await Promise.all(readers.map((reader) => reader.untilCaughtUp()));
        const events = someEvents(3);
        await store().appendToStream(scope.stream('a'), events);
        for (const reader of readers) expect(idsOf(await reader.events(3))).toEqual(idsOf(events));
      } finally {
        await Promise.all(readers.map((reader) => reader.close()));
      }
    });

    it('ends iteration when closed, also while waiting for live events', async () => {
      const scope = newScope();
      await store().appendToStream(scope.stream('a'), [anEvent()]);
      const subscription = store().subscribe({ filter: { streamPrefixes: [scope.prefix] } });
      const kinds: string[] = [];
      let caughtUp: () => void = () => undefined;
      const reachedLive = new Promise<void>((resolve) => (caughtUp = resolve));
      const consumer = (async () => {
        for await (const message of subscription) {
          if (message.kind !== 'checkpoint') kinds.push(message.kind);
          if (message.kind === 'caught_up') caughtUp();
        }
        return 'ended';
      })();
      await reachedLive;
      await subscription.close();
      expect(await consumer).toBe('ended');
      expect(kinds).toEqual(['event', 'caught_up']);
      const unused = store().subscribe({});
      await unused.close();
    });
  });
}
