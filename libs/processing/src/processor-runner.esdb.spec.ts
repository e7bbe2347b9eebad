// The processor runner on EventStoreDB (the protocol test server) when its processors read few
// of the events written (issue 26 item 5): the server's checkpoints of the filtered subscription
// move every processor's stored checkpoint past the events it passed over, while catching up and
// live, so that a restart does not read that stretch again (without them it stayed at the last
// event a processor read).
import { randomUUID } from 'node:crypto';
import { EsdbEventStore, InMemoryCheckpointStore, type EventToAppend } from '@strata/event-store';
import { startEsdbTestServer, waitUntil, type EsdbTestServer } from '@strata/testing';
import type { DecodedEvent, Processor } from './processor';
import { ProcessorRunner } from './processor-runner';

function events(count: number, type: string): EventToAppend[] {
  return Array.from({ length: count }, (_, index) => ({ id: randomUUID(), type, data: { index } }));
}

class CountingProcessor implements Processor<string> {
  readonly name = 'counting';
  readonly onFailure = 'park';
  readonly durability = 'durable';
  readonly eventTypes = ['kept.happened'];
  readonly handled: string[] = [];

  handle(message: string): Promise<void> {
    this.handled.push(message);
    return Promise.resolve();
  }
}

function decode(event: { readonly id: string; readonly streamId: string }): DecodedEvent<string> {
  return { kind: 'message', partition: event.streamId, tenant: 'default', message: event.id };
}

describe('the processor runner on EventStoreDB, its processors reading few events', () => {
  let server: EsdbTestServer;
  let store: EsdbEventStore;

  beforeEach(async () => {
    server = await startEsdbTestServer();
    store = EsdbEventStore.fromConnectionString(server.connectionString, { checkpointIntervalMultiplier: 1 });
  });

  afterEach(async () => {
    await store.close();
    await server.stop();
  });

  function runnerOf(checkpoints: InMemoryCheckpointStore, processor: CountingProcessor) {
    return new ProcessorRunner({ name: 'sparse', store, checkpoints, processors: [processor], decode });
  }

  it('stores its checkpoint past the events it passed over, catching up and live', async () => {
    await store.appendToStream('kept-1', events(1, 'kept.happened'));
    const history = await store.appendToStream('noise-1', events(200, 'noise.happened'));
    const checkpoints = new InMemoryCheckpointStore();
    const processor = new CountingProcessor();
    const runner = runnerOf(checkpoints, processor);
    await runner.start();
    try {
      await runner.whenCaughtUp();
      expect(processor.handled).toHaveLength(1);
      const checkpointId = 'processors/counting';
      await waitUntil(
        async () => (await checkpoints.load(checkpointId)) === history.position,
        'the checkpoint at the end of the history it passed over',
      );

      const live = await store.appendToStream('noise-2', events(100, 'noise.happened'));
      // the server reports a checkpoint every 32 events it passes over, live as well
      await waitUntil(
        async () => ((await checkpoints.load(checkpointId)) ?? 0n) > history.position,
        'the checkpoint past the live events passed over',
        {
          detail: () =>
            `checkpoint at ${String(runner.status().position)}, live events up to ${live.position}`,
        },
      );
      expect((await checkpoints.load(checkpointId)) ?? 0n).toBeLessThanOrEqual(live.position);
      expect(processor.handled).toHaveLength(1);
    } finally {
      await runner.stop();
    }
  });
});
