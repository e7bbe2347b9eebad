import { InMemoryCheckpointStore, InMemoryEventStore, type CheckpointStore } from '@strata/event-store';
import { sessionEventTypes, sessionStreamName, type SessionEventType } from '@strata/session';
import { RESET_CHECKPOINT, UnknownProcessorError } from '@strata/processing';
import type { Projection, ProjectionDurability } from './projection';
import type { ProjectedEvent } from './projected-event';
import {
  createReadModelRunner,
  projectionCheckpointId as checkpointIdOf,
  type ReadModelRunner,
  type ReadModelRunnerOptions,
} from './read-model-runner';

class RecordingProjection implements Projection {
  readonly applied: ProjectedEvent[] = [];
  readonly forgotten: string[] = [];
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

  forget(sessionId: string): void {
    this.forgotten.push(sessionId);
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
  extra: Partial<ReadModelRunnerOptions> = {},
): ReadModelRunner {
  return createReadModelRunner({ store, checkpoints, projections, retryDelayMs: 1, ...extra });
}

describe('the read-model runner', () => {
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
      expect(runner.status()).toMatchObject({ state: 'live', position: 3n });
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

  describe('given session events that cannot be read back', () => {
    it('sets their session aside, goes on with the other sessions, and passes over unknown types', async () => {
      const store = new InMemoryEventStore();
      const checkpoints = new InMemoryCheckpointStore();
      await appendStarted(store, 's4');
      await store.appendToStream(sessionStreamName('s4'), [
        { id: eventId(), type: 'SomethingNew', data: {} },
        { id: eventId(), type: 'LeafMoved', data: { leafId: 42 } },
      ]);
      await appendLeafMove(store, 's4');
      const other = await appendStarted(store, 's4b');
      const projection = new RecordingProjection('tolerant');
      const parked: string[] = [];
      const runner = runnerOver(store, checkpoints, [projection], {
        onParked: (record) => parked.push(`${record.partition} ${record.eventType}: ${record.reason}`),
      });

      await runner.start();
      await runner.whenCaughtUp();

      expect(parked).toEqual([
        `${sessionStreamName('s4')} LeafMoved: the event cannot be read: invalid_data: Invalid input: expected string, received number at data.leafId`,
      ]);
      expect(projection.eventIds).toEqual([expect.any(String), other]);
      expect(projection.forgotten).toEqual(['s4']);
      expect(runner.isParked(sessionStreamName('s4'))).toMatchObject({ processor: 'tolerant', position: 3n });
      expect(await checkpoints.load(checkpointIdOf('tolerant'))).toBe(5n);
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

      // one stored as each interval of 2 events fills, before the catch-up ends at 6. A flush
      // under way when the next event finishes stores that one too as it ends (flushes are
      // coalesced, not queued), which a busy machine makes happen: so each interval is checked
      // for a checkpoint within it, not for its exact position
      const stored = checkpoints.journal.map(([, position]) => position);
      expect(stored.at(-1)).toBe(6n);
      expect([...stored].sort((a, b) => (a < b ? -1 : 1))).toEqual(stored);
      expect(new Set(stored).size).toBe(stored.length);
      for (const filled of [2n, 4n]) expect(stored.some((at) => at >= filled && at < filled + 2n)).toBe(true);
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
        processors: ['rebuilt'],
        eventsRead: 2,
        eventsHandled: 2,
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

      expect(report.eventsHandled).toBe(1);
      expect(runner.status().state).toBe('stopped');
    });

    it('refuses a projection it does not run', async () => {
      const runner = runnerOver(new InMemoryEventStore(), new InMemoryCheckpointStore(), [
        new RecordingProjection('a'),
      ]);

      await expect(runner.rebuild(['nope'])).rejects.toBeInstanceOf(UnknownProcessorError);
    });
  });

  describe('given a projection that fails on one event', () => {
    it('sets that session aside for it, keeps the other sessions and projections going, and moves the checkpoint on', async () => {
      const store = new InMemoryEventStore();
      const checkpoints = new InMemoryCheckpointStore();
      await appendStarted(store, 's9');
      const failing = await appendLeafMove(store, 's9');
      const after = await appendLeafMove(store, 's9');
      const elsewhere = await appendStarted(store, 's10');
      const fragile = new RecordingProjection('fragile');
      fragile.failOnEventId = failing.id;
      const sturdy = new RecordingProjection('sturdy');
      const errors: unknown[] = [];
      const runner = runnerOver(store, checkpoints, [fragile, sturdy], {
        onError: (error) => errors.push(error),
      });

      await runner.start();
      await runner.whenCaughtUp();

      expect(runner.status().state).toBe('live');
      expect(errors).toEqual([]);
      expect(fragile.eventIds).not.toContain(after.id);
      expect(fragile.eventIds).toContain(elsewhere);
      expect(sturdy.eventIds).toContain(after.id);
      expect(runner.isParked(sessionStreamName('s9'), 'fragile')).toMatchObject({
        eventId: failing.id,
        reason: `cannot apply ${failing.id}`,
      });
      expect(runner.isParked(sessionStreamName('s9'), 'sturdy')).toBeUndefined();
      expect(await checkpoints.load(checkpointIdOf('fragile'))).toBe(4n);
      await runner.stop();
    });
  });
});
