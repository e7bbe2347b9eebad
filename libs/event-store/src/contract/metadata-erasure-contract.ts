// Contract: stream metadata (round trip, replacement) and erasure (content gone, appends
// refused, an audit record that holds no content).
import { ReservedStreamMetadataError, StreamErasedError } from '../port';
import {
  anEvent,
  collect,
  idsOf,
  newScope,
  readStreamOrNothing,
  rejectionOf,
  SubscriptionReader,
  type ContractContext,
} from './contract-support';

const SECRET = 'secret-text-that-must-vanish';

export function describeMetadataAndErasureContract({ store, features }: ContractContext): void {
  describe('stream metadata', () => {
    it('is {} for a stream that has none', async () => {
      expect(await store().getStreamMetadata(newScope().stream('none'))).toEqual({});
    });

    it('round-trips custom keys, and a new value replaces the old one', async () => {
      const streamId = newScope().stream('meta');
      await store().appendToStream(streamId, [anEvent()]);
      await store().setStreamMetadata(streamId, { owner: 'team-a', retention: { days: 30 }, tags: ['x'] });
      expect(await store().getStreamMetadata(streamId)).toMatchObject({
        owner: 'team-a',
        retention: { days: 30 },
        tags: ['x'],
      });
      await store().setStreamMetadata(streamId, { owner: 'team-b' });
      const replaced = await store().getStreamMetadata(streamId);
      expect(replaced).toMatchObject({ owner: 'team-b' });
      expect(replaced).not.toHaveProperty('retention');
      expect(await collect(store().readStream(streamId))).toHaveLength(1);
    });

    it.each(['maxAge', 'maxCount', 'truncateBefore', 'cacheControl', 'acl', '$tb'])(
      'refuses %s (retention or access control), stores nothing and keeps every event',
      async (key) => {
        const streamId = newScope().stream('retention');
        await store().appendToStream(streamId, [anEvent(), anEvent(), anEvent()]);
        await store().setStreamMetadata(streamId, { owner: 'team-a' });
        const error = await rejectionOf(store().setStreamMetadata(streamId, { owner: 'team-b', [key]: 1 }));
        expect(error).toBeInstanceOf(ReservedStreamMetadataError);
        expect(error).toMatchObject({ streamId, keys: [key] });
        const kept = await store().getStreamMetadata(streamId);
        expect(kept).toMatchObject({ owner: 'team-a' });
        expect(kept).not.toHaveProperty(key);
        expect(await collect(store().readStream(streamId))).toHaveLength(3);
      },
    );
  });

  describe('erasure', () => {
    async function erasedStream(): Promise<{ streamId: string; prefix: string; keptId: string }> {
      const scope = newScope();
      const streamId = scope.stream('session-erased');
      await store().appendToStream(streamId, [
        anEvent('message', { text: SECRET }),
        anEvent('message', { text: `${SECRET} again` }, { note: SECRET }),
      ]);
      const kept = anEvent('message', { text: 'kept' });
      await store().appendToStream(scope.stream('session-kept'), [kept]);
      await store().eraseStream(streamId, {
        actor: 'dpo@example.com',
        reason: 'GDPR art. 17',
        tenant: 'acme',
      });
      return { streamId, prefix: scope.prefix, keptId: kept.id };
    }

    it('leaves nothing of the content to read, and other streams untouched', async () => {
      const { streamId, prefix, keptId } = await erasedStream();
      expect(await readStreamOrNothing(store(), streamId)).toEqual([]);
      expect(idsOf(await collect(store().readStream(`${prefix}session-kept`)))).toEqual([keptId]);
    });

    it('refuses further appends with StreamErasedError, whatever the expectation', async () => {
      const { streamId } = await erasedStream();
      for (const expectedRevision of ['any', 'no_stream', 1n] as const) {
        const error = await rejectionOf(store().appendToStream(streamId, [anEvent()], { expectedRevision }));
        expect(error).toBeInstanceOf(StreamErasedError);
      }
      expect(await readStreamOrNothing(store(), streamId)).toEqual([]);
    });

    it('keeps an audit record of who, when, why and how many, without any content', async () => {
      const { streamId, prefix } = await erasedStream();
      const records = await store().listErasures(streamId);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        streamId,
        actor: 'dpo@example.com',
        reason: 'GDPR art. 17',
        tenant: 'acme',
        eventCount: 2,
      });
      expect(Number.isNaN(Date.parse(records[0]!.erasedAt))).toBe(false);
      expect(JSON.stringify(records)).not.toContain(SECRET);
      await store().eraseStream(`${prefix}session-kept`, { actor: 'ops', reason: 'test' });
      const all = await store().listErasures();
      expect(
        all.filter((record) => record.streamId.startsWith(prefix)).map((record) => record.streamId),
      ).toEqual([streamId, `${prefix}session-kept`]);
      expect(await store().listErasures(`${prefix}never-erased`)).toEqual([]);
    });

    if (features.erasureRemovesFromReadAll) {
      it('removes the content from the global log and from new subscriptions', async () => {
        const { prefix, keptId } = await erasedStream();
        const everything = await collect(store().readAll({ filter: { streamPrefixes: [prefix] } }));
        expect(idsOf(everything)).toEqual([keptId]);
        expect(JSON.stringify(everything.map((event) => event.data))).not.toContain(SECRET);
        const reader = new SubscriptionReader(
          store().subscribe({ filter: { streamPrefixes: [prefix] } }),
          features.messageTimeoutMs,
        );
        try {
          const history = await reader.untilCaughtUp();
          expect(history.flatMap((message) => (message.kind === 'event' ? [message.event.id] : []))).toEqual([
            keptId,
          ]);
        } finally {
          await reader.close();
        }
      });
    }
  });
}
