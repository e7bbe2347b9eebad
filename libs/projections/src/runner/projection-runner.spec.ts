import { InMemoryCheckpointStore, InMemoryEventStore, type CheckpointStore } from '@strata/event-store';
import { sessionEventTypes, sessionStreamName, type SessionEventType } from '@strata/session';
import type { Projection, ProjectionDurability } from './projection';
import type { InvalidEventReport, ProjectedEvent } from './projected-event';
import { ProjectionRunner } from './projection-runner';
import {
  checkpointIdOf,
  RESET_CHECKPOINT,
  UnknownProjectionError,
  type ProjectionRunnerOptions,
} from './projection-runner-types';

class RecordingProjection implements Projection {
  readonly applied: ProjectedEvent[] = [];
  resets = 0;
  failOnEventId: string | undefined;

  constructor(
    readonly name: string,
    readonly durability: ProjectionDurability = 'durable',
    readonly eventTypes: readonly SessionEventType[] = sessionEventTypes,
  ) {}

  apply(event: ProjectedEvent): Promise<void> {
    if (event.eventId === this.failOnEventId)
      return Promise.reject(new Error(`cannot apply ${event.eventId}`));
    this.applied.push(event);
    return Promise.resolve();
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  reset(): Promise<void> {
    this.resets += 1;
    this.applied.length = 0;
    return Promise.resolve();
  }

  get eventIds(): string[] {
    return this.applied.map((event) => event.eventId);
  }
}

/** Remembers every checkpoint stored, in order. */
class JournalingCheckpointStore implements CheckpointStore {
  readonly journal: [string, bigint][] = [];
  private readonly inner = new InMemoryCheckpointStore();

  load(subscriberId: string): Promise<bigint | null> {
    return this.inner.load(subscriberId);
  }

  store(subscriberId: string, position: bigint): Promise<void> {
    this.journal.push([subscriberId, position]);
    return this.inner.store(subscriberId, position);
  }
}

const header = {
  type: 'session' as const,
  version: 3,
  id: 'ignored',
  timestamp: '2026-01-01T00:00:00.000Z',
  cwd: '/w',
};
let eventCounter = 0;

function eventId(): string {
  eventCounter += 1;
  return `00000000-0000-7000-8000-${String(eventCounter).padStart(12, '0')}`;
}

async function appendStarted(store: InMemoryEventStore, sessionId: string, tenant = 'acme'): Promise<string> {
  const id = eventId();
  await store.appendToStream(sessionStreamName(sessionId), [
    { id, type: 'SessionStarted', data: { header: { ...header, id: sessionId } }, metadata: { tenant } },
  ]);
  return id;
}

async function appendLeafMove(
  store: InMemoryEventStore,
  sessionId: string,
): Promise<{ id: string; position: bigint }> {
  const id = eventId();
  const result = await store.appendToStream(sessionStreamName(sessionId), [
    { id, type: 'LeafMoved', data: { leafId: null, previousLeafId: null } },
  ]);
  return { id, position: result.position };
}

function runnerOver(
  store: InMemoryEventStore,
  checkpoints: CheckpointStore,
  projections: readonly Projection[],
  extra: Partial<ProjectionRunnerOptions> = {},
): ProjectionRunner {
  return new ProjectionRunner({ store, checkpoints, projections, ...extra });
}

describe('ProjectionRunner', () => {
  describe('given session events and other streams in the store', () => {
    it('applies the session events in position order, only of the types a projection handles, and stores its checkpoint', async () => {
      const store = new InMemoryEventStore();
      const checkpoints = new InMemoryCheckpointStore();
      const started = await appendStarted(store, 's1');
      await store.appendToStream('orders-1', [{ id: eventId(), type: 'OrderPlaced', data: {} }]);
      const moved = await appendLeafMove(store, 's1');
      const everything = new RecordingProjection('everything');
      const startsOnly = new RecordingProjection('starts', 'durable', ['SessionStarted']);
      const runner = runnerOver(store, checkpoints, [everything, startsOnly]);

      await runner.start();
      await runner.whenCaughtUp();

      expect(everything.eventIds).toEqual([started, moved.id]);
      expect(everything.applied[0]).toMatchObject({ sessionId: 's1', tenant: 'acme', revision: 0n });
      expect(startsOnly.eventIds).toEqual([started]);
      expect(await checkpoints.load(checkpointIdOf('everything'))).toBe(3n);
      expect(await checkpoints.load(checkpointIdOf('starts'))).toBe(3n);
      expect(runner.status()).toMatchObject({ state: 'live', appliedPosition: 3n });
      await runner.stop();
    });
  });

  describe('given a runner restarted over the same checkpoints', () => {
    it('resumes after its checkpoint and applies only what it had not seen', async () => {
      const store = new InMemoryEventStore();
      const checkpoints = new InMemoryCheckpointStore();
      await appendStarted(store, 's1');
      const first = new RecordingProjection('catalog');
      const firstRunner = runnerOver(store, checkpoints, [first]);
      await firstRunner.start();
      await firstRunner.whenCaughtUp();
      await firstRunner.stop();

      const later = await appendLeafMove(store, 's1');
      const second = new RecordingProjection('catalog');
      const secondRunner = runnerOver(store, checkpoints, [second]);
      await secondRunner.start();
      await secondRunner.whenCaughtUp();

      expect(second.eventIds).toEqual([later.id]);
      await secondRunner.stop();
    });
  });

  describe('given a runner that has caught up', () => {
    it('applies live events, stores the checkpoint after each and releases waits on their positions', async () => {
      const store = new InMemoryEventStore();
      const checkpoints = new InMemoryCheckpointStore();
      const projection = new RecordingProjection('live');
      const runner = runnerOver(store, checkpoints, [projection]);
      await runner.start();
      await runner.whenCaughtUp();

      await appendStarted(store, 's2');
      const moved = await appendLeafMove(store, 's2');
      await runner.waitForPosition(moved.position);

      expect(projection.applied).toHaveLength(2);
      expect(await checkpoints.load(checkpointIdOf('live'))).toBe(moved.position);
      expect(await runner.lag()).toEqual({
        lastSeenPosition: moved.position,
        appliedPosition: moved.position,
        headPosition: 2n,
        positionsBehind: 0n,
      });
      await runner.stop();
    });

    it('reports how far it was behind before it started', async () => {
      const store = new InMemoryEventStore();
      await appendStarted(store, 's3');
      await appendLeafMove(store, 's3');
      const runner = runnerOver(store, new InMemoryCheckpointStore(), [new RecordingProjection('lagging')]);

      expect((await runner.lag()).positionsBehind).toBe(2n);
    });
  });

  describe('given events that are not session events', () => {
    it('reports and skips unknown types and invalid data, and moves its checkpoint past them', async () => {
      const store = new InMemoryEventStore();
      const checkpoints = new InMemoryCheckpointStore();
      await store.appendToStream(sessionStreamName('s4'), [
        { id: eventId(), type: 'SomethingNew', data: {} },
        { id: eventId(), type: 'LeafMoved', data: { leafId: 42 } },
      ]);
      const started = await appendStarted(store, 's4');
      const reports: InvalidEventReport[] = [];
      const projection = new RecordingProjection('tolerant');
      const runner = runnerOver(store, checkpoints, [projection], {
        onInvalidEvent: (report) => reports.push(report),
      });

      await runner.start();
      await runner.whenCaughtUp();

      expect(reports.map((report) => [report.reason, report.type])).toEqual([
        ['unknown_type', 'SomethingNew'],
        ['invalid_data', 'LeafMoved'],
      ]);
      expect(projection.eventIds).toEqual([started]);
      expect(runner.status().invalidEvents).toBe(2);
      expect(await checkpoints.load(checkpointIdOf('tolerant'))).toBe(3n);
      await runner.stop();
    });
  });

  describe('given a volatile projection', () => {
    it('starts at the head of the store: no history, only live events', async () => {
      const store = new InMemoryEventStore();
      const checkpoints = new JournalingCheckpointStore();
      await appendStarted(store, 's5');
      const durable = new RecordingProjection('durable');
      const volatile = new RecordingProjection('memory', 'volatile');
      const runner = runnerOver(store, checkpoints, [durable, volatile]);
      await runner.start();
      await runner.whenCaughtUp();

      const moved = await appendLeafMove(store, 's5');
      await runner.waitForPosition(moved.position);

      expect(durable.applied).toHaveLength(2);
      expect(volatile.eventIds).toEqual([moved.id]);
      expect(checkpoints.journal.map(([id]) => id)).not.toContain(checkpointIdOf('memory'));
      await runner.stop();
    });
  });

  describe('given a long history', () => {
    it('stores checkpoints while catching up, every checkpoint interval', async () => {
      const store = new InMemoryEventStore();
      const checkpoints = new JournalingCheckpointStore();
      await appendStarted(store, 's6');
      for (let index = 0; index < 5; index += 1) await appendLeafMove(store, 's6');
      const runner = runnerOver(store, checkpoints, [new RecordingProjection('batched')], {
        checkpointInterval: 2,
      });

      await runner.start();
      await runner.whenCaughtUp();

      expect(checkpoints.journal.map(([, position]) => position)).toEqual([2n, 4n, 6n]);
      await runner.stop();
    });
  });

  describe('given a rebuild', () => {
    it('stores the reset checkpoint, resets the projection and replays the whole log', async () => {
      const store = new InMemoryEventStore();
      const checkpoints = new JournalingCheckpointStore();
      await appendStarted(store, 's7');
      await appendLeafMove(store, 's7');
      const rebuilt = new RecordingProjection('rebuilt');
      const untouched = new RecordingProjection('untouched');
      const runner = runnerOver(store, checkpoints, [rebuilt, untouched]);
      await runner.start();
      await runner.whenCaughtUp();
      checkpoints.journal.length = 0;

      const report = await runner.rebuild(['rebuilt']);

      expect(checkpoints.journal[0]).toEqual([checkpointIdOf('rebuilt'), RESET_CHECKPOINT]);
      expect(rebuilt.resets).toBe(1);
      expect(rebuilt.applied).toHaveLength(2);
      expect(untouched.applied).toHaveLength(2);
      expect(report).toMatchObject({
        projections: ['rebuilt'],
        eventsRead: 2,
        eventsApplied: 2,
        position: 2n,
      });
      expect(runner.isRunning).toBe(true);

      const moved = await appendLeafMove(store, 's7');
      await runner.waitForPosition(moved.position);
      expect(untouched.applied).toHaveLength(3);
      await runner.stop();
    });

    it('rebuilds an idle runner and leaves it stopped', async () => {
      const store = new InMemoryEventStore();
      await appendStarted(store, 's8');
      const projection = new RecordingProjection('idle');
      const runner = runnerOver(store, new InMemoryCheckpointStore(), [projection]);

      const report = await runner.rebuild();

      expect(report.eventsApplied).toBe(1);
      expect(runner.status().state).toBe('stopped');
    });

    it('refuses a projection it does not run', async () => {
      const runner = runnerOver(new InMemoryEventStore(), new InMemoryCheckpointStore(), [
        new RecordingProjection('a'),
      ]);

      await expect(runner.rebuild(['nope'])).rejects.toBeInstanceOf(UnknownProjectionError);
    });
  });

  describe('given a projection that fails', () => {
    it('stops as failed, rejects the caught-up wait, and keeps the checkpoint before the failing event', async () => {
      const store = new InMemoryEventStore();
      const checkpoints = new InMemoryCheckpointStore();
      await appendStarted(store, 's9');
      const failing = await appendLeafMove(store, 's9');
      const projection = new RecordingProjection('fragile');
      projection.failOnEventId = failing.id;
      const errors: unknown[] = [];
      const runner = runnerOver(store, checkpoints, [projection], { onError: (error) => errors.push(error) });

      await runner.start();

      await expect(runner.whenCaughtUp()).rejects.toThrow(`cannot apply ${failing.id}`);
      expect(runner.status()).toMatchObject({ state: 'failed', failure: `cannot apply ${failing.id}` });
      expect(errors).toHaveLength(1);
      expect(await checkpoints.load(checkpointIdOf('fragile'))).toBeNull();
      await runner.stop();
    });
  });
});
