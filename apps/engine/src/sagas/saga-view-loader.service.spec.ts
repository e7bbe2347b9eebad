import { InMemoryEventStore, type EventStore, type ReadStreamOptions } from '@strata/event-store';
import { charsPerFourCounter, type SessionEvent } from '@strata/session';
import { session } from '@strata/testing';
import { SessionStreams } from '../sessions/session-streams.service';
import { parseEngineSettings } from '../settings/engine-settings';
import type { SagaTrigger } from './saga-messages';
import { SagaViewLoader } from './saga-view-loader.service';

/** The in-memory store, counting the events its stream reads hand out. */
class CountingStore extends InMemoryEventStore {
  eventsRead = 0;

  override readStream(streamId: string, options?: ReadStreamOptions) {
    const events = super.readStream(streamId, options);
    const counted = (): void => {
      this.eventsRead += 1;
    };
    return {
      async *[Symbol.asyncIterator]() {
        for await (const event of events) {
          counted();
          yield event;
        }
      },
    };
  }
}

const settings = parseEngineSettings({ tokenizer: 'chars4' });
const builder = session({ sessionId: 'long' });
for (let turn = 0; turn < 50; turn += 1) builder.user(`Question ${turn}`).assistant(`Answer ${turn}`);
const [firstHalf, secondHalf] = [builder.entries.slice(0, 60), builder.entries.slice(60)];

function trigger(eventId: string): SagaTrigger {
  const event: SessionEvent = { type: 'LeafMoved', data: { leafId: null, previousLeafId: null } };
  return { sessionId: 'long', eventId, position: 0n, recordedAt: 0, event };
}

async function storeWithSession(store: EventStore): Promise<SessionStreams> {
  const streams = new SessionStreams(store);
  await streams.execute('long', [
    { type: 'StartSession', data: { header: builder.header } },
    { type: 'AppendEntries', data: { entries: firstHalf } },
  ]);
  return streams;
}

describe('the saga view loader, given a session of one long append', () => {
  it('folds the stream once for all the events of that append', async () => {
    const store = new CountingStore();
    await storeWithSession(store);
    const loader = new SagaViewLoader(store, settings, charsPerFourCounter);
    for (let event = 0; event < 60; event += 1) await loader.load(trigger(`event-${event}`));
    expect(store.eventsRead).toBe(61);
  });

  it('reads only the events appended since, and answers what a fresh fold answers', async () => {
    const store = new CountingStore();
    const streams = await storeWithSession(store);
    const loader = new SagaViewLoader(store, settings, charsPerFourCounter);
    await loader.load(trigger('before'));
    await streams.execute('long', { type: 'AppendEntries', data: { entries: secondHalf } });
    const readBefore = store.eventsRead;
    const view = await loader.load(trigger('after'));
    expect(store.eventsRead - readBefore).toBe(secondHalf.length);
    expect(view?.path.at(-1)?.id).toBe(builder.entries.at(-1)?.id);
    expect(view).toEqual(
      await new SagaViewLoader(store, settings, charsPerFourCounter).load(trigger('after')),
    );
  });

  it('answers undefined once the session is erased, even after a kept fold', async () => {
    const store = new CountingStore();
    await storeWithSession(store);
    const loader = new SagaViewLoader(store, settings, charsPerFourCounter);
    expect(await loader.load(trigger('kept'))).toBeDefined();
    await store.eraseStream('session-long', { actor: 'test', reason: 'erasure' });
    expect(await loader.load(trigger('kept'))).toBeUndefined();
  });
});
