import { Logger } from '@nestjs/common';
import { InMemoryCheckpointStore, InMemoryEventStore } from '@strata/event-store';
import { session } from '@strata/testing';
import { SagaFeed, type SagaDelivery } from './saga-feed';
import { DEFAULT_SAGA_RUNNER_OPTIONS, SagaRunner, type SagaRunnerOptions } from './saga-runner.service';
import { sagaViewOf } from './saga-specification';
import type { SagaViewLoader } from './saga-view-loader.service';

const SUBSCRIBER = 'strata-sagas';
const view = sagaViewOf(session().user('Hello').assistant('Hi').entries);
const views = { load: () => Promise.resolve(view) } as unknown as SagaViewLoader;

function completed(attemptId: string) {
  return {
    id: crypto.randomUUID(),
    type: 'CompactionCompleted',
    data: {
      attemptId,
      entryId: 'c0001',
      trigger: 'manual',
      durationMs: 1,
      tokensBefore: 10,
      estimatedTokensAfter: 5,
    },
  };
}

interface Setup {
  readonly store: InMemoryEventStore;
  readonly checkpoints: InMemoryCheckpointStore;
  readonly runner: SagaRunner;
  /** Deliveries the continuation saga received, in order. */
  readonly deliveries: SagaDelivery[];
}

/** A runner over an in-memory store whose continuation saga answers as `answer` says. */
function setUp(
  answer: (delivery: SagaDelivery, index: number) => void,
  options: Partial<SagaRunnerOptions> = {},
): Setup {
  const store = new InMemoryEventStore();
  const checkpoints = new InMemoryCheckpointStore();
  const feed = new SagaFeed();
  const deliveries: SagaDelivery[] = [];
  feed.deliveriesFor('continuation').subscribe((delivery) => {
    deliveries.push(delivery);
    answer(delivery, deliveries.length - 1);
  });
  const runner = new SagaRunner(
    store,
    checkpoints,
    { ...DEFAULT_SAGA_RUNNER_OPTIONS, retryDelayMs: 1, ...options },
    feed,
    views,
  );
  return { store, checkpoints, runner, deliveries };
}

const succeed = (delivery: SagaDelivery): void =>
  delivery.settle({ saga: 'continuation', status: 'completed', commands: [] });
const fail = (delivery: SagaDelivery): void =>
  delivery.settle({
    saga: 'continuation',
    status: 'failed',
    commands: [],
    error: new Error('store unavailable'),
  });

beforeAll(() => {
  Logger.overrideLogger(false);
});

describe('the saga runner', () => {
  describe('given a step that fails once, then succeeds', () => {
    it('delivers the event again and stores the checkpoint only after the success', async () => {
      const setup = setUp((delivery, index) => (index === 0 ? fail(delivery) : succeed(delivery)));
      const { position } = await setup.store.appendToStream('session-a', [completed('a')]);
      await setup.runner.start();

      await setup.runner.drain();

      expect(setup.deliveries).toHaveLength(2);
      expect(setup.deliveries[1]?.trigger.eventId).toBe(setup.deliveries[0]?.trigger.eventId);
      expect(await setup.checkpoints.load(SUBSCRIBER)).toBe(position);
      expect(setup.runner.status()).toMatchObject({ eventsDelivered: 1, eventsGivenUp: 0 });
      await setup.runner.stop();
    });
  });

  describe('given a step that always fails', () => {
    it('gives the event up after the last delivery and goes on with the next one', async () => {
      const setup = setUp(
        (delivery) =>
          delivery.trigger.event.type === 'CompactionCompleted' && delivery.trigger.sessionId === 'a'
            ? fail(delivery)
            : succeed(delivery),
        {
          maxDeliveries: 3,
        },
      );
      await setup.store.appendToStream('session-a', [completed('a')]);
      const { position } = await setup.store.appendToStream('session-b', [completed('b')]);
      await setup.runner.start();

      await setup.runner.drain();

      expect(setup.deliveries.map((delivery) => delivery.trigger.sessionId)).toEqual(['a', 'a', 'a', 'b']);
      expect(setup.runner.status()).toMatchObject({ eventsGivenUp: 1, handledPosition: position });
      await setup.runner.stop();
    });
  });

  describe('given a runner stopped while an event waits to be delivered again', () => {
    it('leaves the event unhandled, so the next start delivers it again', async () => {
      const setup = setUp((delivery, index) => (index === 0 ? fail(delivery) : succeed(delivery)), {
        retryDelayMs: 60_000,
      });
      const first = await setup.store.appendToStream('session-a', [completed('a')]);
      const second = await setup.store.appendToStream('session-a', [completed('b')]);
      await setup.runner.start();
      while (setup.deliveries.length === 0) await new Promise((resolve) => setImmediate(resolve));

      await setup.runner.stop();
      const stored = await setup.checkpoints.load(SUBSCRIBER);
      expect(stored === null || stored < first.position).toBe(true);

      await setup.runner.start();
      await setup.runner.drain();
      expect(
        setup.deliveries.map(
          (delivery) =>
            delivery.trigger.event.type === 'CompactionCompleted' && delivery.trigger.event.data.attemptId,
        ),
      ).toEqual(['a', 'a', 'b']);
      expect(await setup.checkpoints.load(SUBSCRIBER)).toBe(second.position);
      await setup.runner.stop();
    });
  });

  describe('given events that concern no saga', () => {
    it('moves past them without delivering anything', async () => {
      const setup = setUp(succeed);
      const { position } = await setup.store.appendToStream('session-a', [
        { id: crypto.randomUUID(), type: 'LeafMoved', data: { leafId: null, previousLeafId: null } },
        { id: crypto.randomUUID(), type: 'CompactionSkipped', data: { attemptId: 'x', reason: 'stale' } },
      ]);
      await setup.runner.start();

      await setup.runner.drain();
      await setup.runner.stop();

      expect(setup.deliveries).toEqual([]);
      expect(setup.runner.status().eventsSeen).toBe(0);
      expect(await setup.checkpoints.load(SUBSCRIBER)).toBe(position);
    });
  });
});
