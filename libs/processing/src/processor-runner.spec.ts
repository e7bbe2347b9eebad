import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import {
  InMemoryCheckpointStore,
  InMemoryEventStore,
  type CheckpointStore,
  type RecordedEvent,
} from '@strata/event-store';
import { InMemoryParkedPartitionStore } from './parked-partitions';
import type { DecodedEvent, FailurePolicy, HandleContext, Processor, ProcessorDurability } from './processor';
import { ProcessorRunner } from './processor-runner';
import type { ProcessorRunnerOptions } from './processor-runner-types';

interface Message {
  readonly stream: string;
  readonly id: string;
  readonly position: bigint;
  readonly type: string;
}

function decode(recorded: RecordedEvent): DecodedEvent<Message> {
  const tenant = typeof recorded.metadata['tenant'] === 'string' ? recorded.metadata['tenant'] : 'default';
  if (recorded.type === 'Unreadable') {
    return { kind: 'invalid', partition: recorded.streamId, tenant, detail: 'not a known shape' };
  }
  return {
    kind: 'message',
    partition: recorded.streamId,
    tenant,
    message: { stream: recorded.streamId, id: recorded.id, position: recorded.position, type: recorded.type },
  };
}

/** A gate a handler waits at until the test opens it. */
class Gate {
  private opened = false;
  private waiting: (() => void)[] = [];

  wait(): Promise<void> {
    if (this.opened) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  open(): void {
    this.opened = true;
    for (const wake of this.waiting) wake();
    this.waiting = [];
  }
}

class RecordingProcessor implements Processor<Message> {
  readonly handled: Message[] = [];
  readonly deliveries: { id: string; delivery: number }[] = [];
  readonly flushes: number[] = [];
  readonly forgotten: string[] = [];
  readonly gates = new Map<string, Gate>();
  failOn = new Set<string>();
  delayOf: ((message: Message) => number) | undefined;
  running = 0;
  mostRunning = 0;

  constructor(
    readonly name: string,
    readonly onFailure: FailurePolicy = 'park',
    readonly durability: ProcessorDurability = 'durable',
    readonly eventTypes: readonly string[] = ['Happened', 'Unreadable'],
  ) {}

  async handle(message: Message, context: HandleContext): Promise<void> {
    this.deliveries.push({ id: message.id, delivery: context.delivery });
    this.running += 1;
    this.mostRunning = Math.max(this.mostRunning, this.running);
    try {
      await this.gates.get(message.id)?.wait();
      const delay = this.delayOf?.(message) ?? 0;
      // Simulated work of a given length (the tests that set it interleave deliveries on purpose).
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.failOn.has(message.id)) throw new Error(`cannot handle ${message.id}`);
      this.handled.push(message);
    } finally {
      this.running -= 1;
    }
  }

  flush(): Promise<void> {
    this.flushes.push(this.handled.length);
    return Promise.resolve();
  }

  forget(partition: string): void {
    this.forgotten.push(partition);
  }

  reset(): Promise<void> {
    this.handled.length = 0;
    return Promise.resolve();
  }

  idsOf(stream?: string): string[] {
    return this.handled
      .filter((message) => stream === undefined || message.stream === stream)
      .map((m) => m.id);
  }
}

/** Remembers every checkpoint stored, with what the processor had handled at that moment. */
class JournalingCheckpoints implements CheckpointStore {
  readonly journal: { id: string; position: bigint }[] = [];
  private readonly inner = new InMemoryCheckpointStore();

  constructor(private readonly onStore?: (position: bigint) => void) {}

  load(id: string): Promise<bigint | null> {
    return this.inner.load(id);
  }

  store(id: string, position: bigint): Promise<void> {
    this.onStore?.(position);
    this.journal.push({ id, position });
    return this.inner.store(id, position);
  }
}

let counter = 0;
function nextId(): string {
  counter += 1;
  return `00000000-0000-7000-8000-${String(counter).padStart(12, '0')}`;
}

async function append(
  store: InMemoryEventStore,
  stream: string,
  count = 1,
  options: { type?: string; tenant?: string } = {},
): Promise<string[]> {
  const ids = Array.from({ length: count }, nextId);
  await store.appendToStream(
    stream,
    ids.map((id) => ({
      id,
      type: options.type ?? 'Happened',
      data: {},
      metadata: { tenant: options.tenant ?? 'acme' },
    })),
  );
  return ids;
}

function runnerOf(
  store: InMemoryEventStore,
  checkpoints: CheckpointStore,
  processors: readonly Processor<Message>[],
  extra: Partial<ProcessorRunnerOptions<Message>> = {},
): ProcessorRunner<Message> {
  return new ProcessorRunner({
    name: 'test',
    store,
    checkpoints,
    processors,
    decode,
    retryDelayMs: 1,
    ...extra,
  });
}

describe('the processor runner', () => {
  describe('given events of several streams in the store', () => {
    it('hands each processor every event of its types, each stream in order, and stores its checkpoint', async () => {
      const store = new InMemoryEventStore();
      const a = await append(store, 'a', 3);
      const b = await append(store, 'b', 2);
      await append(store, 'a', 1, { type: 'Other' });
      const processor = new RecordingProcessor('recorder');
      const checkpoints = new InMemoryCheckpointStore();
      const runner = runnerOf(store, checkpoints, [processor]);

      await runner.start();
      await runner.whenCaughtUp();

      expect(processor.idsOf('a')).toEqual(a);
      expect(processor.idsOf('b')).toEqual(b);
      expect(await checkpoints.load('processors/recorder')).toBe(6n);
      expect(runner.status()).toMatchObject({ state: 'live', position: 6n });
      await runner.stop();
    });

    it('starts a volatile processor at the head of the store and stores nothing for it', async () => {
      const store = new InMemoryEventStore();
      await append(store, 'a', 2);
      const processor = new RecordingProcessor('live-only', 'park', 'volatile');
      const checkpoints = new JournalingCheckpoints();
      const runner = runnerOf(store, checkpoints, [processor]);
      await runner.start();
      await runner.whenCaughtUp();
      const later = await append(store, 'a', 1);
      await runner.drain();

      expect(processor.idsOf()).toEqual(later);
      expect(checkpoints.journal).toEqual([]);
      await runner.stop();
    });
  });

  describe('given one stream whose event takes long', () => {
    it('handles the other streams meanwhile and keeps its checkpoint before the unfinished event', async () => {
      const store = new InMemoryEventStore();
      const [slow] = await append(store, 'slow', 1);
      const fast = await append(store, 'fast', 3);
      const processor = new RecordingProcessor('recorder');
      const gate = new Gate();
      processor.gates.set(slow!, gate);
      const checkpoints = new InMemoryCheckpointStore();
      const runner = runnerOf(store, checkpoints, [processor], { checkpointInterval: 1 });
      await runner.start();

      await waitUntil(() => processor.idsOf('fast').length === 3);
      expect(processor.idsOf('slow')).toEqual([]);
      expect(await checkpoints.load('processors/recorder')).toBeNull();

      gate.open();
      await runner.whenCaughtUp();
      expect(await checkpoints.load('processors/recorder')).toBe(4n);
      expect(processor.idsOf()).toEqual([...fast, slow]);
      await runner.stop();
    });
  });

  describe('given a read of one stream while another stream holds the checkpoint back', () => {
    it('releases a wait on that stream as soon as its own events are handled and flushed', async () => {
      const store = new InMemoryEventStore();
      const processor = new RecordingProcessor('recorder');
      const runner = runnerOf(store, new InMemoryCheckpointStore(), [processor]);
      await runner.start();
      await runner.whenCaughtUp();
      const [slow] = await append(store, 'slow', 1);
      const gate = new Gate();
      processor.gates.set(slow!, gate);
      const [fast] = await append(store, 'fast', 1);
      const fastPosition = 2n;
      let wholeStoreReached = false;
      const wholeStore = runner.waitForPosition(fastPosition).then(() => {
        wholeStoreReached = true;
      });

      await runner.waitForScope({ partition: 'fast' }, fastPosition);

      expect(processor.idsOf('fast')).toEqual([fast]);
      expect(processor.flushes.at(-1)).toBe(1);
      expect(wholeStoreReached).toBe(false);
      // A window on purpose: the slow partition's event is held at its gate (nothing can reach
      // it), and its wait must not resolve meanwhile.
      await expect(
        Promise.race([
          runner.waitForScope({ partition: 'slow' }, 1n).then(() => 'reached'),
          new Promise((resolve) => setTimeout(() => resolve('waiting'), 20)),
        ]),
      ).resolves.toBe('waiting');
      gate.open();
      await wholeStore;
      await runner.stop();
    });
  });

  describe('given an event a processor passes over while its flush is under way', () => {
    it('moves its position past that event when the flush ends, so a wait for it is released', async () => {
      const store = new InMemoryEventStore();
      const slow = new RecordingProcessor('slow-flush', 'park', 'durable', ['Happened']);
      const flushGate = new Gate();
      let flushesStarted = 0;
      let holdFlushes = false;
      slow.flush = async (): Promise<void> => {
        flushesStarted += 1;
        if (holdFlushes) await flushGate.wait();
      };
      const other = new RecordingProcessor('other', 'park', 'durable', ['Other']);
      const runner = runnerOf(store, new InMemoryCheckpointStore(), [slow, other]);
      await runner.start();
      await runner.whenCaughtUp();
      await runner.drain();
      holdFlushes = true;
      const flushesBefore = flushesStarted;

      await append(store, 'a', 1);
      await waitUntil(() => flushesStarted > flushesBefore);
      const [passed] = await append(store, 'b', 1, { type: 'Other' });
      await waitUntil(() => other.idsOf('b').includes(passed!));
      let released = false;
      const wait = runner.waitForPosition(2n, ['slow-flush']).then(() => {
        released = true;
      });
      flushGate.open();

      // no event comes after the one passed over: only the end of the flush can release the wait
      await waitUntil(() => released);
      await wait;
      expect(runner.status().processors.find((status) => status.name === 'slow-flush')?.checkpoint).toBe(2n);
      await runner.stop();
    });
  });

  describe('when the process dies with events running and is started again', () => {
    it('delivers again every event after the stored checkpoint, so none is lost', async () => {
      const store = new InMemoryEventStore();
      const [blocked] = await append(store, 'a', 1);
      const others = await append(store, 'b', 4);
      const first = new RecordingProcessor('recorder');
      first.gates.set(blocked!, new Gate());
      const checkpoints = new InMemoryCheckpointStore();
      const dying = runnerOf(store, checkpoints, [first], { checkpointInterval: 1 });
      await dying.start();
      await waitUntil(() => first.idsOf('b').length === 4);
      // The process dies here: nothing more of the first runner runs.

      const second = new RecordingProcessor('recorder');
      const restarted = runnerOf(store, checkpoints, [second]);
      await restarted.start();
      await restarted.whenCaughtUp();

      expect(second.idsOf('a')).toEqual([blocked]);
      expect(new Set([...first.idsOf(), ...second.idsOf()])).toEqual(new Set([blocked, ...others]));
      await restarted.stop();
    });
  });

  describe('given a processor that fails on one event', () => {
    it('parks that stream (its later events are passed over), goes on with the others, and keeps it parked after a restart', async () => {
      const store = new InMemoryEventStore();
      const [poison] = await append(store, 'bad', 1);
      const good = await append(store, 'good', 2);
      await append(store, 'bad', 2);
      const processor = new RecordingProcessor('recorder');
      processor.failOn.add(poison!);
      const parkedStore = new InMemoryParkedPartitionStore();
      const parkedSeen: string[] = [];
      const checkpoints = new InMemoryCheckpointStore();
      const runner = runnerOf(store, checkpoints, [processor], {
        parked: parkedStore,
        onParked: (record) => parkedSeen.push(`${record.partition}:${record.eventId}`),
      });
      await runner.start();
      await runner.whenCaughtUp();

      expect(processor.idsOf('good')).toEqual(good);
      expect(processor.idsOf('bad')).toEqual([]);
      expect(processor.deliveries.filter((delivery) => delivery.id === poison)).toHaveLength(3);
      expect(parkedSeen).toEqual([`bad:${poison}`]);
      expect(processor.forgotten).toEqual(['bad']);
      expect(runner.isParked('bad')).toMatchObject({ eventId: poison, reason: `cannot handle ${poison}` });
      expect(runner.status().processors[0]).toMatchObject({
        parkedPartitions: 1,
        eventsPassedWhileParked: 2,
      });
      expect(await checkpoints.load('processors/recorder')).toBe(5n);
      await runner.stop();

      await append(store, 'bad', 1);
      const again = new RecordingProcessor('recorder');
      const restarted = runnerOf(store, checkpoints, [again], { parked: parkedStore });
      await restarted.start();
      await restarted.whenCaughtUp();
      expect(again.idsOf('bad')).toEqual([]);
      expect(restarted.isParked('bad')?.eventId).toBe(poison);
      await restarted.stop();
    });

    it('brings the parked stream back with a rebuild once the processor can handle it', async () => {
      const store = new InMemoryEventStore();
      const bad = await append(store, 'bad', 2);
      const processor = new RecordingProcessor('recorder');
      processor.failOn.add(bad[0]!);
      const parkedStore = new InMemoryParkedPartitionStore();
      const runner = runnerOf(store, new InMemoryCheckpointStore(), [processor], { parked: parkedStore });
      await runner.start();
      await runner.whenCaughtUp();
      expect(runner.parked()).toHaveLength(1);

      processor.failOn.clear();
      const report = await runner.rebuild();

      expect(report).toMatchObject({ processors: ['recorder'], parkedPartitions: 0, eventsHandled: 2 });
      expect(processor.idsOf('bad')).toEqual(bad);
      expect(await parkedStore.list('recorder')).toEqual([]);
      await runner.stop();
    });

    it('parks the stream of an event that cannot be read, without delivering it', async () => {
      const store = new InMemoryEventStore();
      await append(store, 'odd', 1, { type: 'Unreadable' });
      const after = await append(store, 'odd', 1);
      const processor = new RecordingProcessor('recorder');
      const runner = runnerOf(store, new InMemoryCheckpointStore(), [processor]);
      await runner.start();
      await runner.whenCaughtUp();

      expect(processor.deliveries).toEqual([]);
      expect(processor.idsOf()).not.toContain(after[0]);
      expect(runner.isParked('odd')?.reason).toBe('the event cannot be read: not a known shape');
      await runner.stop();
    });

    it('gives the event up and goes on with its stream when the processor skips failures', async () => {
      const store = new InMemoryEventStore();
      const [poison, next] = await append(store, 'a', 2);
      const processor = new RecordingProcessor('work', 'skip');
      processor.failOn.add(poison!);
      const givenUp: string[] = [];
      const runner = runnerOf(store, new InMemoryCheckpointStore(), [processor], {
        maxDeliveries: 2,
        onGivenUp: (failure) => givenUp.push(failure.eventId),
      });
      await runner.start();
      await runner.whenCaughtUp();

      expect(processor.deliveries.filter((delivery) => delivery.id === poison)).toEqual([
        { id: poison, delivery: 1 },
        { id: poison, delivery: 2 },
      ]);
      expect(givenUp).toEqual([poison]);
      expect(processor.idsOf('a')).toEqual([next]);
      expect(runner.parked()).toEqual([]);
      await runner.stop();
    });
  });

  describe('given two tenants sharing the slots', () => {
    it('lets no tenant hold more than maxPerTenant slots, so the other starts at once', async () => {
      const store = new InMemoryEventStore();
      const processor = new RecordingProcessor('work');
      const gate = new Gate();
      const busy: string[] = [];
      for (let index = 0; index < 6; index += 1) busy.push(...(await append(store, `acme-${index}`, 1)));
      for (const id of busy) processor.gates.set(id, gate);
      const runner = runnerOf(store, new InMemoryCheckpointStore(), [processor], {
        concurrency: 4,
        maxPerTenant: 2,
      });
      await runner.start();
      await waitUntil(() => processor.running === 2);
      const [other] = await append(store, 'globex-1', 1, { tenant: 'globex' });

      await waitUntil(() => processor.idsOf().includes(other!));
      expect(processor.running).toBe(2);
      gate.open();
      await runner.drain();
      expect(processor.mostRunning).toBe(3);
      expect(processor.idsOf()).toHaveLength(7);
      await runner.stop();
    });
  });

  describe('given a processor with more queued than it may hold', () => {
    it('stops reading until it has room', async () => {
      const store = new InMemoryEventStore();
      await append(store, 'a', 10);
      const processor = new RecordingProcessor('slow');
      const gate = new Gate();
      const firstId = (await collect(store))[0]!;
      processor.gates.set(firstId, gate);
      const runner = runnerOf(store, new InMemoryCheckpointStore(), [processor], { maxQueued: 3 });
      await runner.start();
      await waitUntil(() => processor.running === 1);
      const seen = async () => (await runner.lag()).lastSeenPosition;
      for (const deadline = Date.now() + 5_000; (await seen()) !== 3n && Date.now() < deadline;)
        await new Promise((resolve) => setTimeout(resolve, 2));
      // It has read as far as it has room for (the positive signal); a window on purpose then, to
      // see that it reads no further while the first event is held.
      await new Promise((resolve) => setTimeout(resolve, 20));

      expect((await runner.lag()).lastSeenPosition).toBe(3n);
      gate.open();
      await runner.whenCaughtUp();
      expect(processor.idsOf()).toHaveLength(10);
      await runner.stop();
    });

    it('waits for room again and again without piling listeners on its stop signal', async () => {
      const store = new InMemoryEventStore();
      await append(store, 'a', 40);
      let mostListeners = 0;
      class ListenerCounting extends RecordingProcessor {
        override async handle(message: Message, context: HandleContext): Promise<void> {
          mostListeners = Math.max(mostListeners, getEventListeners(context.signal, 'abort').length);
          await super.handle(message, context);
        }
      }
      const processor = new ListenerCounting('one-at-a-time');
      processor.delayOf = () => 1; // each event ends on a later turn, so the runner waits for room
      const runner = runnerOf(store, new InMemoryCheckpointStore(), [processor], { maxQueued: 1 });
      await runner.start();
      await runner.whenCaughtUp();
      await runner.stop();

      expect(processor.idsOf()).toHaveLength(40);
      expect(mostListeners).toBeLessThanOrEqual(2);
    });
  });

  describe('for any interleaving of handling times', () => {
    it('keeps each stream in order, handles every event once, and never stores a checkpoint past an unfinished event', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 3 })), {
            minLength: 1,
            maxLength: 25,
          }),
          fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 20 }),
          fc.integer({ min: 1, max: 5 }),
          async (batches, delays, concurrency) => {
            const store = new InMemoryEventStore();
            const expected = new Map<string, string[]>();
            for (const [stream, count] of batches) {
              const ids = await append(store, `s${stream}`, count, { tenant: `t${stream % 2}` });
              expected.set(`s${stream}`, [...(expected.get(`s${stream}`) ?? []), ...ids]);
            }
            const processor = new RecordingProcessor('recorder');
            let delayIndex = 0;
            processor.delayOf = () => delays[delayIndex++ % delays.length]!;
            const unsafe: bigint[] = [];
            const checkpoints = new JournalingCheckpoints((position) => {
              const handledPositions = new Set(processor.handled.map((message) => message.position));
              for (let at = 1n; at <= position; at += 1n)
                if (!handledPositions.has(at)) unsafe.push(position);
            });
            const runner = runnerOf(store, checkpoints, [processor], { concurrency, checkpointInterval: 2 });
            await runner.start();
            await runner.whenCaughtUp();
            await runner.stop();
            for (const [stream, ids] of expected) expect(processor.idsOf(stream)).toEqual(ids);
            expect(processor.handled).toHaveLength([...expected.values()].flat().length);
            expect(unsafe).toEqual([]);
            expect(processor.mostRunning).toBeLessThanOrEqual(concurrency);
          },
        ),
        { numRuns: 40 },
      );
    });
  });
});

async function collect(store: InMemoryEventStore): Promise<string[]> {
  const ids: string[] = [];
  for await (const event of store.readAll()) ids.push(event.id);
  return ids;
}

async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not come true in time');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
