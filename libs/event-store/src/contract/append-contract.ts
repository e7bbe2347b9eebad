// Contract: appending (expected revisions, the ConcurrencyError fields, atomic batches,
// idempotent retries with the same ids, JSON-only content).
import { ConcurrencyError } from '../port';
import {
  anEvent,
  collect,
  idsOf,
  isIdConflict,
  newScope,
  rejectionOf,
  someEvents,
  type ContractContext,
} from './contract-support';

export function describeAppendContract({ store, features }: ContractContext): void {
  describe('appending', () => {
    describe('given a stream that does not exist', () => {
      it('starts it at revision 0 with no_stream, and reports the last revision and position', async () => {
        const streamId = newScope().stream('new');
        const result = await store().appendToStream(streamId, someEvents(2), {
          expectedRevision: 'no_stream',
        });
        const recorded = await collect(store().readStream(streamId));
        expect(result.nextExpectedRevision).toBe(1n);
        expect(recorded.map((event) => event.revision)).toEqual([0n, 1n]);
        expect(recorded[1]!.position).toBe(result.position);
        expect(recorded[0]!.position < recorded[1]!.position).toBe(true);
        expect(Number.isNaN(Date.parse(recorded[0]!.createdAt))).toBe(false);
      });

      it('refuses stream_exists with a ConcurrencyError whose actual is null', async () => {
        const streamId = newScope().stream('missing');
        const error = await rejectionOf(
          store().appendToStream(streamId, [anEvent()], { expectedRevision: 'stream_exists' }),
        );
        expect(error).toBeInstanceOf(ConcurrencyError);
        expect(error).toMatchObject({ streamId, expected: 'stream_exists', actual: null });
        expect(await store().streamRevision(streamId)).toBeNull();
      });

      it('refuses an exact revision with a ConcurrencyError whose actual is null', async () => {
        const streamId = newScope().stream('missing');
        const error = await rejectionOf(
          store().appendToStream(streamId, [anEvent()], { expectedRevision: 0n }),
        );
        expect(error).toMatchObject({ streamId, expected: 0n, actual: null });
        expect(error).toBeInstanceOf(ConcurrencyError);
      });

      it("accepts 'any', the default expectation", async () => {
        const streamId = newScope().stream('any');
        await store().appendToStream(streamId, [anEvent()]);
        const result = await store().appendToStream(streamId, [anEvent()], { expectedRevision: 'any' });
        expect(result.nextExpectedRevision).toBe(1n);
        expect(await store().streamRevision(streamId)).toBe(1n);
      });
    });

    describe('given a stream at revision 2', () => {
      async function streamAtRevisionTwo(): Promise<string> {
        const streamId = newScope().stream('existing');
        await store().appendToStream(streamId, someEvents(3), { expectedRevision: 'no_stream' });
        return streamId;
      }

      it('refuses no_stream, reporting expected and actual, and writes nothing', async () => {
        const streamId = await streamAtRevisionTwo();
        const error = await rejectionOf(
          store().appendToStream(streamId, [anEvent()], { expectedRevision: 'no_stream' }),
        );
        expect(error).toBeInstanceOf(ConcurrencyError);
        expect(error).toMatchObject({ streamId, expected: 'no_stream', actual: 2n });
        expect(await collect(store().readStream(streamId))).toHaveLength(3);
      });

      it('accepts stream_exists', async () => {
        const streamId = await streamAtRevisionTwo();
        const result = await store().appendToStream(streamId, [anEvent()], {
          expectedRevision: 'stream_exists',
        });
        expect(result.nextExpectedRevision).toBe(3n);
      });

      it('accepts exactly revision 2 and refuses 1 and 3 with the actual revision', async () => {
        const streamId = await streamAtRevisionTwo();
        for (const stale of [1n, 3n]) {
          const error = await rejectionOf(
            store().appendToStream(streamId, [anEvent()], { expectedRevision: stale }),
          );
          expect(error).toBeInstanceOf(ConcurrencyError);
          expect(error).toMatchObject({ streamId, expected: stale, actual: 2n });
        }
        const result = await store().appendToStream(streamId, someEvents(2), { expectedRevision: 2n });
        expect(result.nextExpectedRevision).toBe(4n);
        const revisions = (await collect(store().readStream(streamId))).map((event) => event.revision);
        expect(revisions).toEqual([0n, 1n, 2n, 3n, 4n]);
      });
    });

    describe('content', () => {
      it('keeps data and metadata as JSON, and gives {} for missing metadata', async () => {
        const streamId = newScope().stream('content');
        const data = { text: 'naïve 🧪 "quoted"', nested: { list: [1, 2.5, null, true, 'x'] }, empty: {} };
        await store().appendToStream(streamId, [anEvent('with-metadata', data, { actor: 'ana', depth: 2 })]);
        await store().appendToStream(streamId, [anEvent('without-metadata', [1, 'two'])]);
        const [withMetadata, withoutMetadata] = await collect(store().readStream(streamId));
        expect(withMetadata).toMatchObject({ streamId, type: 'with-metadata', data });
        expect(withMetadata!.metadata).toEqual({ actor: 'ana', depth: 2 });
        expect(withoutMetadata!.data).toEqual([1, 'two']);
        expect(withoutMetadata!.metadata).toEqual({});
      });

      it('records an event at the time it was appended with, reports it unchanged, and keeps the metadata as given', async () => {
        const streamId = newScope().stream('given-time');
        const given = '2001-02-03T04:05:06.789Z';
        await store().appendToStream(streamId, [
          { ...anEvent('timed', { n: 1 }, { actor: 'ana' }), createdAt: given },
          anEvent('untimed'),
        ]);
        const [timed, untimed] = await collect(store().readStream(streamId));
        expect(timed!.createdAt).toBe(given);
        expect(timed!.metadata).toEqual({ actor: 'ana' });
        expect(untimed!.createdAt).not.toBe(given);
        expect(Number.isNaN(Date.parse(untimed!.createdAt))).toBe(false);
        const [fromLog] = (await collect(store().readAll())).filter((event) => event.id === timed!.id);
        expect(fromLog!.createdAt).toBe(given);
      });

      it('refuses a time that is not an ISO 8601 UTC time and writes nothing of the batch', async () => {
        const streamId = newScope().stream('bad-time');
        for (const createdAt of ['yesterday', '2001-02-03 04:05:06', '2001-02-03T04:05:06+01:00']) {
          const batch = [anEvent('fine'), { ...anEvent('timed'), createdAt }];
          await expect(store().appendToStream(streamId, batch)).rejects.toThrow(/ISO 8601/);
        }
        expect(await collect(store().readStream(streamId))).toEqual([]);
      });

      it('refuses data that is not JSON (a bigint) and writes nothing of the batch', async () => {
        const streamId = newScope().stream('not-json');
        const batch = [anEvent('fine'), anEvent('broken', { amount: 10n })];
        await expect(store().appendToStream(streamId, batch)).rejects.toThrow();
        expect(await collect(store().readStream(streamId))).toEqual([]);
        expect(await store().streamRevision(streamId)).toBeNull();
      });
    });

    describe('given an append that succeeded', () => {
      it('returns the same result and writes nothing when retried with the same ids and no_stream', async () => {
        const streamId = newScope().stream('retry');
        const batch = someEvents(2);
        const first = await store().appendToStream(streamId, batch, { expectedRevision: 'no_stream' });
        const retry = await store().appendToStream(streamId, batch, { expectedRevision: 'no_stream' });
        expect(retry).toEqual(first);
        expect(idsOf(await collect(store().readStream(streamId)))).toEqual(idsOf(batch));
      });

      it('returns the same result when retried with the same exact revision after later appends', async () => {
        const streamId = newScope().stream('retry');
        await store().appendToStream(streamId, someEvents(2));
        const batch = someEvents(2);
        const first = await store().appendToStream(streamId, batch, { expectedRevision: 1n });
        await store().appendToStream(streamId, [anEvent()]);
        const retry = await store().appendToStream(streamId, batch, { expectedRevision: 1n });
        expect(retry).toEqual(first);
        expect(await collect(store().readStream(streamId))).toHaveLength(5);
      });

      it("returns the same result when retried with 'any'", async () => {
        const streamId = newScope().stream('retry');
        const batch = [anEvent()];
        const first = await store().appendToStream(streamId, batch);
        const retry = await store().appendToStream(streamId, batch);
        expect(retry).toEqual(first);
        expect(await store().streamRevision(streamId)).toBe(0n);
      });

      if (features.uniqueEventIds) {
        it('never records a reused id at another revision or in another stream', async () => {
          const scope = newScope();
          const [reused] = someEvents(1);
          await store().appendToStream(scope.stream('first'), [reused!, anEvent()]);
          const atAnotherRevision = await rejectionOf(
            store().appendToStream(scope.stream('first'), [reused!], { expectedRevision: 1n }),
          );
          const inAnotherStream = await rejectionOf(
            store().appendToStream(scope.stream('second'), [reused!]),
          );
          expect(isIdConflict(atAnotherRevision)).toBe(true);
          expect(isIdConflict(inAnotherStream)).toBe(true);
          expect(await collect(store().readStream(scope.stream('first')))).toHaveLength(2);
          expect(await collect(store().readStream(scope.stream('second')))).toEqual([]);
        });

        it('writes nothing of a batch in which one id is already recorded or repeated', async () => {
          const scope = newScope();
          const [recorded] = someEvents(1);
          await store().appendToStream(scope.stream('first'), [recorded!]);
          const laterIdReused = await rejectionOf(
            store().appendToStream(scope.stream('second'), [anEvent(), recorded!]),
          );
          const repeated = anEvent();
          const repeatedInBatch = await rejectionOf(
            store().appendToStream(scope.stream('second'), [repeated, anEvent(), repeated]),
          );
          expect(isIdConflict(laterIdReused)).toBe(true);
          expect(isIdConflict(repeatedInBatch)).toBe(true);
          expect(await store().streamRevision(scope.stream('second'))).toBeNull();
        });
      }
    });
  });
}
