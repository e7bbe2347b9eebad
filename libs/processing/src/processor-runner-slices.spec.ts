// The runner shares the event loop while it catches up (docs/decisions/0010): a timer set when a
// long catch-up starts runs before the catch-up ends, and the loop yields per slice, not per event.
// A long burst of live events (an import) shares it too.
import { InMemoryCheckpointStore, InMemoryEventStore, eventLoopSlice } from '@strata/event-store';
import type { DecodedEvent, Processor } from './processor';
import { ProcessorRunner } from './processor-runner';

const EVENTS = 3_000;
const WORK_PER_EVENT_MS = 0.05;

function busyFor(milliseconds: number): void {
  const until = performance.now() + milliseconds;
  while (performance.now() < until) {
    // a processor with real work to do for each event
  }
}

function decode(recorded: { streamId: string; id: string }): DecodedEvent<string> {
  return { kind: 'message', partition: recorded.streamId, tenant: 'default', message: recorded.id };
}

describe('a processor runner catching up with a long history', () => {
  it('lets a timer run before it has caught up, yielding once per slice rather than once per event', async () => {
    const store = new InMemoryEventStore();
    for (let stream = 0; stream < 10; stream += 1) {
      await store.appendToStream(
        `stream-${stream}`,
        Array.from({ length: EVENTS / 10 }, (_, index) => ({
          id: `${stream}-${index}`,
          type: 'Happened',
          data: {},
        })),
      );
    }
    let handled = 0;
    const processor: Processor<string> = {
      name: 'busy',
      durability: 'durable',
      eventTypes: ['Happened'],
      onFailure: 'park',
      handle: () => {
        busyFor(WORK_PER_EVENT_MS);
        handled += 1;
        return Promise.resolve();
      },
    };
    const runner = new ProcessorRunner<string>({
      name: 'slices',
      store,
      checkpoints: new InMemoryCheckpointStore(),
      processors: [processor],
      decode,
    });
    const yieldsBefore = eventLoopSlice.yields;
    let handledWhenTimerRan: number | undefined;
    await runner.start();
    setTimeout(() => {
      handledWhenTimerRan = handled;
    }, 0);
    await runner.whenCaughtUp();
    await runner.stop();

    expect(handled).toBe(EVENTS);
    expect(handledWhenTimerRan).toBeDefined();
    expect(handledWhenTimerRan).toBeLessThan(EVENTS);
    const yields = eventLoopSlice.yields - yieldsBefore;
    expect(yields).toBeGreaterThan(0);
    expect(yields).toBeLessThan(EVENTS / 10);
  });
});

describe('a processor runner given a long burst of live events', () => {
  it('lets a timer run before the burst is handled (a burst longer than one slice shares the loop)', async () => {
    const store = new InMemoryEventStore();
    let handled = 0;
    const processor: Processor<string> = {
      name: 'busy-live',
      durability: 'durable',
      eventTypes: ['Happened'],
      onFailure: 'park',
      handle: () => {
        busyFor(WORK_PER_EVENT_MS);
        handled += 1;
        return Promise.resolve();
      },
    };
    const runner = new ProcessorRunner<string>({
      name: 'live-slices',
      store,
      checkpoints: new InMemoryCheckpointStore(),
      processors: [processor],
      decode,
    });
    await runner.start();
    await runner.whenCaughtUp();
    // one append of many events, as an import writes them
    await store.appendToStream(
      'imported',
      Array.from({ length: EVENTS }, (_, index) => ({ id: `live-${index}`, type: 'Happened', data: {} })),
    );
    let handledWhenTimerRan: number | undefined;
    setTimeout(() => {
      handledWhenTimerRan = handled;
    }, 0);
    await runner.drain();
    await runner.stop();

    expect(handled).toBe(EVENTS);
    expect(handledWhenTimerRan).toBeDefined();
    expect(handledWhenTimerRan).toBeLessThan(EVENTS);
  });
});
