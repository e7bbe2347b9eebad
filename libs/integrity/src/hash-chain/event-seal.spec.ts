import { OFF_LOOP_HASH_LENGTH, eventHash, sealEvents, sealEventsOffLoop } from './event-seal';
import { LARGE_STEP_LENGTH, eventLoopSlice, type RecordedEvent } from '@strata/event-store';

describe('sealEventsOffLoop', () => {
  const events = [
    { id: 'small-1', type: 'EntryAppended', data: { text: 'hello' } },
    { id: 'large', type: 'EntryAppended', data: { text: 'é'.repeat(OFF_LOOP_HASH_LENGTH) } },
    { id: 'small-2', type: 'EntryAppended', data: { text: 'bye' }, metadata: { origin: 'test' } },
  ];
  const context = { tenant: 'acme', actor: 'alice' };

  it('seals exactly as sealEvents does, large events hashed on the thread pool included', async () => {
    const expected = sealEvents('session-s', events, undefined, context);
    expect(await sealEventsOffLoop('session-s', events, undefined, context)).toEqual(expected);
    // each hash covers its event and chains onto the previous one
    expected.forEach((sealed, index) => {
      const { hash, ...rest } = sealed.metadata!;
      expect(hash).toBe(
        eventHash({ streamId: 'session-s', revision: BigInt(index), ...sealed, metadata: rest }),
      );
      if (index > 0) expect(rest['previousHash']).toBe(expected[index - 1]!.metadata!['hash']);
    });
  });

  it('gives the event loop its turn between the canonical text of a large event and its encoding, not for small ones', async () => {
    const small = events.filter((event) => event.id !== 'large');
    const before = eventLoopSlice.yields;
    await sealEventsOffLoop('session-s', small, undefined, context);
    expect(eventLoopSlice.yields).toBe(before);
    const huge = [{ id: 'huge', type: 'EntryAppended', data: { text: 'a'.repeat(LARGE_STEP_LENGTH) } }];
    await sealEventsOffLoop('session-s', huge, undefined, context);
    expect(eventLoopSlice.yields).toBe(before + 1);
  });

  it('chains onto the last stored event, and refuses one without a hash', async () => {
    const [first] = sealEvents('session-s', events.slice(0, 1), undefined, context);
    const last = {
      ...first!,
      streamId: 'session-s',
      revision: 0n,
      position: 0n,
      createdAt: '',
    } as RecordedEvent;
    const rest = await sealEventsOffLoop('session-s', events.slice(1), last, context);
    expect(rest).toEqual(sealEvents('session-s', events.slice(1), last, context));
    expect(rest[0]!.metadata!['previousHash']).toBe(first!.metadata!['hash']);
    await expect(sealEventsOffLoop('session-s', events, { ...last, metadata: {} }, context)).rejects.toThrow(
      /carries no integrity hash/,
    );
  });
});
