// Contract: racing writers. With exact expected revisions and retry on conflict nothing is
// lost or duplicated; conflicts are reported as ConcurrencyError, never swallowed; batches
// stay contiguous in the global log.
import { ConcurrencyError, type EventStore, type EventToAppend } from '../port';
import {
  anEvent,
  collect,
  idsOf,
  isIdConflict,
  newScope,
  someEvents,
  type ContractContext,
} from './contract-support';

/** Appends one event at the stream's current revision, retrying on conflict; returns the conflicts met. */
async function appendAtCurrentRevision(
  store: EventStore,
  streamId: string,
  event: EventToAppend,
): Promise<number> {
  for (let conflicts = 0; ; conflicts += 1) {
    const revision = await store.streamRevision(streamId);
    try {
      await store.appendToStream(streamId, [event], { expectedRevision: revision ?? 'no_stream' });
      return conflicts;
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      if (conflicts > 10_000) throw new Error('a writer never got through', { cause: error });
    }
  }
}

export function describeConcurrencyContract({ store, features }: ContractContext): void {
  const writerCount = features.concurrentWriters;
  const eventsPerWriter = features.eventsPerWriter;

  describe('racing writers', () => {
    it('lets exactly one of two writers with the same expected revision through', async () => {
      const streamId = newScope().stream('race');
      await store().appendToStream(streamId, [anEvent()]);
      const contenders = [anEvent('first'), anEvent('second')];
      const outcomes = await Promise.allSettled(
        contenders.map((event) => store().appendToStream(streamId, [event], { expectedRevision: 0n })),
      );
      const winners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const losers = outcomes.flatMap((outcome) =>
        outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
      );
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      expect(losers[0]).toBeInstanceOf(ConcurrencyError);
      expect(losers[0]).toMatchObject({ streamId, expected: 0n, actual: 1n });
      expect(await collect(store().readStream(streamId))).toHaveLength(2);
    });

    it('loses and duplicates nothing when many writers append to one stream with exact revisions', async () => {
      const streamId = newScope().stream('contended');
      const plans = Array.from({ length: writerCount }, () => someEvents(eventsPerWriter, 'contended'));
      const conflictsPerWriter = await Promise.all(
        plans.map(async (events) => {
          let conflicts = 0;
          for (const event of events) conflicts += await appendAtCurrentRevision(store(), streamId, event);
          return conflicts;
        }),
      );
      const recorded = await collect(store().readStream(streamId));
      const total = writerCount * eventsPerWriter;
      expect(recorded).toHaveLength(total);
      expect(new Set(idsOf(recorded))).toEqual(new Set(plans.flat().map((event) => event.id)));
      expect(recorded.map((event) => event.revision)).toEqual(
        Array.from({ length: total }, (_, index) => BigInt(index)),
      );
      for (const events of plans) {
        const order = idsOf(events).map((id) => recorded.findIndex((event) => event.id === id));
        expect(order).toEqual([...order].sort((left, right) => left - right));
      }
      expect(conflictsPerWriter.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
    });

    it("loses nothing when many writers append to one stream with 'any'", async () => {
      const streamId = newScope().stream('any');
      const events = someEvents(writerCount * eventsPerWriter);
      await Promise.all(events.map((event) => store().appendToStream(streamId, [event])));
      const recorded = await collect(store().readStream(streamId));
      expect(new Set(idsOf(recorded))).toEqual(new Set(idsOf(events)));
      expect(recorded.map((event) => event.revision)).toEqual(events.map((_, index) => BigInt(index)));
    });

    it('keeps each batch contiguous and every position unique when writers race across streams', async () => {
      const scope = newScope();
      const batches = Array.from({ length: writerCount * 2 }, () => someEvents(5));
      await Promise.all(
        batches.map((batch, index) => store().appendToStream(scope.stream(`s${index % writerCount}`), batch)),
      );
      const recorded = await collect(store().readAll({ filter: { streamPrefixes: [scope.prefix] } }));
      expect(recorded).toHaveLength(batches.length * 5);
      expect(new Set(recorded.map((event) => event.position)).size).toBe(recorded.length);
      for (const batch of batches) {
        const start = recorded.findIndex((event) => event.id === batch[0]!.id);
        expect(idsOf(recorded.slice(start, start + 5))).toEqual(idsOf(batch));
      }
    });

    it('writes a batch once when the same append is retried concurrently', async () => {
      const streamId = newScope().stream('retried');
      const batch = someEvents(3);
      const outcomes = await Promise.allSettled(
        Array.from({ length: writerCount }, () =>
          store().appendToStream(streamId, batch, { expectedRevision: 'no_stream' }),
        ),
      );
      const results = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      const errors = outcomes.flatMap((outcome) =>
        outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
      );
      expect(results.length).toBeGreaterThan(0);
      for (const result of results) expect(result).toEqual(results[0]);
      for (const error of errors) expect(isIdConflict(error)).toBe(true);
      expect(idsOf(await collect(store().readStream(streamId)))).toEqual(idsOf(batch));
    });
  });
}
