import {
  OFF_LOOP_HASH_LENGTH,
  SEAL_VERSION,
  eventHash,
  sealEvents,
  sealEventsOffLoop,
  sealTimeAfter,
} from './event-seal';
import { canonicalJson } from './canonical-json';
import {
  LARGE_STEP_LENGTH,
  eventLoopSlice,
  rememberEncoding,
  sharedUtf8,
  type EventToAppend,
  type RecordedEvent,
} from '@strata/event-store';

describe('sealEventsOffLoop', () => {
  const events = [
    { id: 'small-1', type: 'EntryAppended', data: { text: 'hello' } },
    { id: 'large', type: 'EntryAppended', data: { text: 'é'.repeat(OFF_LOOP_HASH_LENGTH) } },
    { id: 'small-2', type: 'EntryAppended', data: { text: 'bye' }, metadata: { origin: 'test' } },
  ];
  const context = { tenant: 'acme', actor: 'alice' };
  const now = new Date('2026-12-06T08:00:00.000Z');

  it('seals exactly as sealEvents does, large events hashed on the thread pool included', async () => {
    const expected = sealEvents('session-s', events, undefined, context, now);
    expect(await sealEventsOffLoop('session-s', events, undefined, context, now)).toEqual(expected);
    // each hash covers its event and chains onto the previous one
    expected.forEach((sealed, index) => {
      const { hash, ...rest } = sealed.metadata!;
      expect(hash).toBe(
        eventHash({ streamId: 'session-s', revision: BigInt(index), ...sealed, metadata: rest }),
      );
      if (index > 0) expect(rest['previousHash']).toBe(expected[index - 1]!.metadata!['hash']);
    });
  });

  it.each([
    ['in memory of its own', (text: string) => new TextEncoder().encode(text)],
    ['in shared memory (hashed on the hasher thread)', sharedUtf8],
  ])(
    'splices the canonical bytes of an entry read off the event loop, %s, to the same hashes',
    async (_, bytesOf) => {
      const remembered = (text: string, canonical: string) => {
        const entry = Object.freeze({ type: 'message', id: 'big', text });
        rememberEncoding(entry, { json: JSON.stringify(entry), canonicalUtf8: bytesOf(canonical) });
        return entry;
      };
      const text = 'ü'.repeat(OFF_LOOP_HASH_LENGTH);
      const entry = remembered(text, canonicalJson({ type: 'message', id: 'big', text }));
      const batch = [events[0]!, { id: 'spliced', type: 'EntryAppended', data: { entry } }, events[2]!];
      const expected = sealEvents('session-s', batch, undefined, context, now);
      expect(await sealEventsOffLoop('session-s', batch, undefined, context, now)).toEqual(expected);
      // the bytes are what is hashed: wrong ones would break the chain, so they are really used
      const wrong = remembered('x', canonicalJson({ type: 'message', id: 'big', text: 'y' }));
      const forged = [{ id: 'spliced', type: 'EntryAppended', data: { entry: wrong } }];
      const [sealed] = await sealEventsOffLoop('session-s', forged, undefined, context, now);
      expect(sealed!.metadata!['hash']).not.toBe(
        sealEvents('session-s', forged, undefined, context, now)[0]!.metadata!['hash'],
      );
    },
  );

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
    const [first] = sealEvents('session-s', events.slice(0, 1), undefined, context, now);
    const last = {
      ...first!,
      streamId: 'session-s',
      revision: 0n,
      position: 0n,
      createdAt: '',
    } as RecordedEvent;
    const rest = await sealEventsOffLoop('session-s', events.slice(1), last, context, now);
    expect(rest).toEqual(sealEvents('session-s', events.slice(1), last, context, now));
    expect(rest[0]!.metadata!['previousHash']).toBe(first!.metadata!['hash']);
    await expect(sealEventsOffLoop('session-s', events, { ...last, metadata: {} }, context)).rejects.toThrow(
      /carries no integrity hash/,
    );
  });
});

describe('the time a seal records (seal version 2)', () => {
  const event = { id: 'e-1', type: 'EntryAppended', data: { text: 'hello' } };
  const recordedAfter = (sealed: EventToAppend, revision: bigint): RecordedEvent => ({
    streamId: 'session-t',
    id: sealed.id,
    type: sealed.type,
    data: sealed.data,
    metadata: sealed.metadata ?? {},
    revision,
    position: revision,
    createdAt: sealed.createdAt ?? '',
  });

  it('seals the time in the metadata, inside the hash, and gives it to the store as the event’s time', () => {
    const now = new Date('2026-12-06T08:00:00.000Z');
    const [sealed] = sealEvents('session-t', [event], undefined, {}, now);
    expect(sealed!.metadata).toMatchObject({ sealVersion: SEAL_VERSION, recordedAt: now.toISOString() });
    expect(sealed!.metadata).not.toHaveProperty('clockStepMs');
    expect(sealed!.createdAt).toBe(now.toISOString());
    const [later] = sealEvents('session-t', [event], undefined, {}, new Date(now.getTime() + 1));
    expect(later!.metadata!['hash']).not.toBe(sealed!.metadata!['hash']);
  });

  it('never records a time earlier than the previous event’s: a clock behind it seals at that time and records the step', () => {
    const first = sealEvents('session-t', [event], undefined, {}, new Date('2026-12-06T09:00:00.000Z'));
    const behind = new Date('2026-12-06T08:00:00.000Z');
    const next = sealEvents(
      'session-t',
      [
        { ...event, id: 'e-2' },
        { ...event, id: 'e-3' },
      ],
      recordedAfter(first[0]!, 0n),
      {},
      behind,
    );
    for (const sealed of next) {
      expect(sealed.createdAt).toBe('2026-12-06T09:00:00.000Z');
      expect(sealed.metadata).toMatchObject({
        recordedAt: '2026-12-06T09:00:00.000Z',
        clockStepMs: 3_600_000,
      });
    }
    expect(sealTimeAfter(recordedAfter(first[0]!, 0n), new Date('2026-12-06T09:00:00.001Z'))).toEqual({
      recordedAt: '2026-12-06T09:00:00.001Z',
      clockStepMs: 0,
    });
  });

  it('takes the stored time of an event sealed before the time was (version 1) as the floor', () => {
    const previous = {
      ...recordedAfter(sealEvents('session-t', [event], undefined)[0]!, 0n),
      metadata: {},
      createdAt: '2030-01-01T00:00:00.000Z',
    };
    expect(sealTimeAfter(previous, new Date('2029-12-31T23:59:59.000Z'))).toEqual({
      recordedAt: '2030-01-01T00:00:00.000Z',
      clockStepMs: 1_000,
    });
  });

  it('replaces a time or a step the caller put in the metadata', () => {
    const now = new Date('2026-12-06T08:00:00.000Z');
    const [sealed] = sealEvents(
      'session-t',
      [{ ...event, metadata: { recordedAt: '1999-01-01T00:00:00.000Z', clockStepMs: 5, sealVersion: 1 } }],
      undefined,
      {},
      now,
    );
    expect(sealed!.metadata).toMatchObject({ recordedAt: now.toISOString(), sealVersion: SEAL_VERSION });
    expect(sealed!.metadata).not.toHaveProperty('clockStepMs');
  });
});
