// Contract: stream metadata (round trip, replacement) and erasure (content gone, appends
// refused, an audit record that holds no content).
import {
  ConcurrencyError,
  ERASURE_EVENT_TYPE,
  ERASURE_LOG_STREAM,
  erasureRecordOfEvent,
  ReservedStreamMetadataError,
  StreamErasedError,
  type RecordedEvent,
} from '../port';
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
const HEAD_HASH = 'ab'.repeat(32);

function erasuresOf(events: readonly RecordedEvent[], streamId: string): RecordedEvent[] {
  return events.filter((event) => erasureRecordOfEvent(event)?.streamId === streamId);
}

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
        anEvent('message', { text: `${SECRET} again` }, { note: SECRET, hash: HEAD_HASH }),
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
        headHash: HEAD_HASH,
        headRevision: '1',
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

    it('erases only the head it names, at the time it is given, and refuses a stream whose head moved', async () => {
      const scope = newScope();
      const streamId = scope.stream('session-signed');
      await store().appendToStream(streamId, [anEvent('message', { text: SECRET }), anEvent()]);
      const stale = await rejectionOf(
        store().eraseStream(streamId, { actor: 'dpo', reason: 'stale head', expectedRevision: 0n }),
      );
      expect(stale).toBeInstanceOf(ConcurrencyError);
      expect(await collect(store().readStream(streamId))).toHaveLength(2);
      expect(await store().listErasures(streamId)).toEqual([]);
      const erasedAt = '2026-03-04T05:06:07.089Z';
      const record = await store().eraseStream(streamId, {
        actor: 'dpo',
        reason: 'signed head',
        erasedAt,
        expectedRevision: 1n,
      });
      expect(record).toMatchObject({ streamId, erasedAt, eventCount: 2, headRevision: '1' });
      expect(await store().listErasures(streamId)).toEqual([record]);
    });

    it('records no head of a stream that held nothing', async () => {
      const streamId = newScope().stream('never-written');
      const record = await store().eraseStream(streamId, { actor: 'ops', reason: 'empty' });
      expect(record).toMatchObject({ streamId, eventCount: 0 });
      expect(record).not.toHaveProperty('headHash');
      expect(record).not.toHaveProperty('headRevision');
    });

    it('shows the erasure log only to reads that ask for it, after the erased events, with the tenant', async () => {
      const scope = newScope();
      const streamId = scope.stream('session-logged');
      await store().appendToStream(streamId, [anEvent('message', { text: SECRET })]);
      const before = await collect(store().readAll({ direction: 'backwards', maxCount: 1 }));
      await store().eraseStream(streamId, { actor: 'dpo', reason: 'request 9', tenant: 'acme' });
      const plain = await collect(store().readAll({ fromPosition: before[0]?.position ?? 'start' }));
      expect(plain.filter((event) => event.streamId === ERASURE_LOG_STREAM)).toEqual([]);
      const asked = await collect(
        store().readAll({ filter: { streamPrefixes: [scope.prefix], includeErasures: true } }),
      );
      const logged = erasuresOf(asked, streamId);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ type: ERASURE_EVENT_TYPE, metadata: { tenant: 'acme' } });
      expect(erasureRecordOfEvent(logged[0]!)).toEqual((await store().listErasures(streamId))[0]);
      expect(JSON.stringify(logged.map((event) => [event.data, event.metadata]))).not.toContain(SECRET);
      const otherTenant = await collect(
        store().readAll({
          filter: { tenant: 'globex', includeErasures: true, streamPrefixes: [scope.prefix] },
        }),
      );
      expect(erasuresOf(otherTenant, streamId)).toEqual([]);
    });

    it('delivers the erasure record live to a subscription that asks for it', async () => {
      const scope = newScope();
      const streamId = scope.stream('session-live');
      await store().appendToStream(streamId, [anEvent()]);
      const reader = new SubscriptionReader(
        store().subscribe({
          fromPosition: 'end',
          filter: { streamPrefixes: [scope.prefix], includeErasures: true },
        }),
        features.messageTimeoutMs,
      );
      try {
        await reader.untilCaughtUp();
        await store().eraseStream(streamId, { actor: 'ops', reason: 'live', tenant: 'acme' });
        for (;;) {
          const [event] = await reader.events(1);
          if (erasureRecordOfEvent(event!)?.streamId === streamId) {
            expect(erasureRecordOfEvent(event!)).toMatchObject({
              actor: 'ops',
              reason: 'live',
              eventCount: 1,
            });
            break;
          }
        }
      } finally {
        await reader.close();
      }
    });

    if (features.revivesErasedStreams) {
      it('writes an erased stream again as a new one when asked to revive it, keeping the record', async () => {
        const { streamId } = await erasedStream();
        const revived = anEvent('message', { text: 'again' });
        const result = await store().appendToStream(streamId, [revived], {
          expectedRevision: 'no_stream',
          reviveErased: true,
        });
        expect(result.nextExpectedRevision).toBe(0n);
        expect(idsOf(await collect(store().readStream(streamId)))).toEqual([revived.id]);
        expect(await store().listErasures(streamId)).toHaveLength(1);
      });
    } else {
      it('cannot write an erased stream again, even when asked to revive it', async () => {
        const { streamId } = await erasedStream();
        const error = await rejectionOf(
          store().appendToStream(streamId, [anEvent()], {
            expectedRevision: 'no_stream',
            reviveErased: true,
          }),
        );
        expect(error).toBeInstanceOf(StreamErasedError);
      });
    }

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
