// Contract: pages bounded in events and in bytes (`PageLimits`). Reads and subscriptions of a
// store with small pages still give every event once, in order, across page boundaries; a
// subscription passes its subscriber's gate before each page and hands out at most one page's
// worth of events per pass; an event larger than the byte limit is a page of its own.
import type { EventStore, EventToAppend, ReadGate } from '../port';
import {
  anEvent,
  collect,
  idsOf,
  newScope,
  SubscriptionReader,
  type ContractContext,
  type ContractStore,
  type ContractStoreOptions,
} from './contract-support';

/** About 2 kB of JSON per event, so that a 3 kB limit ends a page at its second event. */
const EVENT_TEXT = 2_000;
const BYTE_LIMITED: ContractStoreOptions = { pageSize: 100, pageBytes: 3_000 };
const COUNT_LIMITED: ContractStoreOptions = { pageSize: 2, pageBytes: 10_000_000 };

function sizedEvents(count: number, label: string): EventToAppend[] {
  return Array.from({ length: count }, (_, index) =>
    anEvent('sized', { index, text: `${label}${index}`.padEnd(EVENT_TEXT, '.') }),
  );
}

/** A gate that records which events a subscription handed out during each pass. */
class RecordingGate implements ReadGate {
  readonly passes: string[][] = [];
  private current: string[] | undefined;
  outsideEvents = 0;

  enter(): Promise<void> {
    if (this.current !== undefined) throw new Error('entered the gate twice without leaving');
    this.current = [];
    return Promise.resolve();
  }

  leave(): void {
    if (this.current === undefined) throw new Error('left the gate without entering');
    this.passes.push(this.current);
    this.current = undefined;
  }

  saw(eventId: string): void {
    if (this.current === undefined) this.outsideEvents += 1;
    else this.current.push(eventId);
  }

  get largestPass(): number {
    return Math.max(0, ...this.passes.map((pass) => pass.length), this.current?.length ?? 0);
  }
}

export function describePagingContract({ openStore, features }: ContractContext): void {
  describe('paging by count and bytes', () => {
    let opened: ContractStore | undefined;

    afterEach(async () => {
      await opened?.cleanup();
      opened = undefined;
    });

    async function storeWith(options: ContractStoreOptions): Promise<EventStore> {
      opened = await openStore(options);
      return opened.store;
    }

    for (const [name, options] of [
      ['bytes', BYTE_LIMITED],
      ['count', COUNT_LIMITED],
    ] as const) {
      describe(`given pages limited by ${name}`, () => {
        it('reads every event of the log once, in order, both directions, with filters and maxCount', async () => {
          const store = await storeWith(options);
          const scope = newScope();
          const wanted = sizedEvents(7, 'w');
          const skipped = sizedEvents(3, 's');
          await store.appendToStream(scope.stream('a'), wanted.slice(0, 3));
          await store.appendToStream(scope.stream('skip'), skipped);
          await store.appendToStream(scope.stream('b'), wanted.slice(3));
          const filter = { eventTypes: ['sized'], streamPrefixes: [scope.stream('a'), scope.stream('b')] };
          expect(idsOf(await collect(store.readAll({ filter })))).toEqual(idsOf(wanted));
          expect(idsOf(await collect(store.readAll({ filter, direction: 'backwards' })))).toEqual(
            idsOf(wanted).reverse(),
          );
          expect(idsOf(await collect(store.readAll({ filter, maxCount: 5 })))).toEqual(
            idsOf(wanted.slice(0, 5)),
          );
          const all = await collect(store.readAll({ filter: { streamPrefixes: [scope.prefix] } }));
          expect(all).toHaveLength(10);
          const fromThird = await collect(store.readAll({ filter, fromPosition: all[2]!.position }));
          expect(idsOf(fromThird)).toEqual(idsOf(wanted.slice(2)));
        });

        it('reads every event of a stream once, in order, both directions, from a revision and with maxCount', async () => {
          const store = await storeWith(options);
          const streamId = newScope().stream('long');
          const events = sizedEvents(7, 'e');
          await store.appendToStream(streamId, events);
          expect(idsOf(await collect(store.readStream(streamId)))).toEqual(idsOf(events));
          expect(idsOf(await collect(store.readStream(streamId, { direction: 'backwards' })))).toEqual(
            idsOf(events).reverse(),
          );
          expect(idsOf(await collect(store.readStream(streamId, { fromRevision: 2n, maxCount: 4 })))).toEqual(
            idsOf(events.slice(2, 6)),
          );
          expect(
            idsOf(await collect(store.readStream(streamId, { direction: 'backwards', fromRevision: 5n }))),
          ).toEqual(idsOf(events.slice(0, 6)).reverse());
        });

        it('passes the gate before each page of a subscription and hands out at most two events per pass', async () => {
          const store = await storeWith(options);
          const scope = newScope();
          const history = sizedEvents(7, 'h');
          await store.appendToStream(scope.stream('a'), history.slice(0, 4));
          await store.appendToStream(scope.stream('skip'), sizedEvents(2, 's'));
          await store.appendToStream(scope.stream('b'), history.slice(4));
          const gate = new RecordingGate();
          const reader = new SubscriptionReader(
            store.subscribe({ filter: { streamPrefixes: [scope.stream('a'), scope.stream('b')] }, gate }),
            features.messageTimeoutMs,
          );
          try {
            const messages: string[] = [];
            for (;;) {
              const message = await reader.next();
              if (message === 'ended') throw new Error('the subscription ended');
              if (message.kind === 'caught_up') break;
              gate.saw(message.event.id);
              messages.push(message.event.id);
            }
            expect(messages).toEqual(idsOf(history));
            const live = sizedEvents(3, 'l');
            await store.appendToStream(scope.stream('b'), live);
            for (let index = 0; index < 3; index += 1) {
              const [event] = await reader.events(1);
              gate.saw(event!.id);
              messages.push(event!.id);
            }
            expect(messages).toEqual(idsOf([...history, ...live]));
            expect(gate.outsideEvents).toBe(0);
            expect(gate.largestPass).toBeLessThanOrEqual(2);
            expect(gate.passes.length).toBeGreaterThanOrEqual(4);
          } finally {
            await reader.close();
          }
        });
      });
    }

    it('reads and delivers an event larger than the byte limit, which then ends its page', async () => {
      const store = await storeWith(BYTE_LIMITED);
      const scope = newScope();
      const large = anEvent('sized', { text: 'L'.repeat(20_000) });
      const events = [large, ...sizedEvents(3, 'after')];
      await store.appendToStream(scope.stream('a'), events);
      const filter = { streamPrefixes: [scope.prefix] };
      const read = await collect(store.readAll({ filter }));
      expect(idsOf(read)).toEqual(idsOf(events));
      expect((read[0]!.data as { text: string }).text).toHaveLength(20_000);
      const gate = new RecordingGate();
      const reader = new SubscriptionReader(store.subscribe({ filter, gate }), features.messageTimeoutMs);
      try {
        const delivered: string[] = [];
        for (;;) {
          const message = await reader.next();
          if (message === 'ended') throw new Error('the subscription ended');
          if (message.kind === 'caught_up') break;
          gate.saw(message.event.id);
          delivered.push(message.event.id);
          expect(message.event.data).toEqual(events[delivered.length - 1]!.data);
        }
        expect(delivered).toEqual(idsOf(events));
        await reader.close();
        expect(gate.passes.find((pass) => pass.includes(large.id))).toEqual([large.id]);
        expect(gate.largestPass).toBeLessThanOrEqual(2);
      } finally {
        await reader.close();
      }
    });
  });
}
