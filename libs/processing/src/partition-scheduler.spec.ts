import { PartitionScheduler } from './partition-scheduler';

interface Job {
  readonly partition: string;
  readonly tenant: string;
  readonly index: number;
}

/** A scheduler whose items finish only when the test releases them. */
function heldScheduler(concurrency: number, maxPerTenant?: number) {
  const started: Job[] = [];
  const releases = new Map<Job, () => void>();
  const scheduler = new PartitionScheduler<Job>({
    concurrency,
    ...(maxPerTenant !== undefined ? { maxPerTenant } : {}),
    run: (_partition, job) =>
      new Promise<void>((resolve) => {
        started.push(job);
        releases.set(job, resolve);
      }),
  });
  const enqueue = (partition: string, tenant: string, count = 1): void => {
    for (let index = 0; index < count; index += 1)
      scheduler.enqueue(partition, tenant, { partition, tenant, index });
  };
  const release = async (job: Job): Promise<void> => {
    releases.get(job)?.();
    releases.delete(job);
    await new Promise((resolve) => setImmediate(resolve));
  };
  const running = (): Job[] => [...releases.keys()];
  return { scheduler, started, enqueue, release, running };
}

describe('the partition scheduler', () => {
  describe('given more partitions than slots', () => {
    it('runs at most `concurrency` items at once, one per partition', async () => {
      const held = heldScheduler(2);
      held.enqueue('a', 't', 3);
      held.enqueue('b', 't', 1);
      held.enqueue('c', 't', 1);
      expect(held.running().map((job) => job.partition)).toEqual(['a', 'b']);
      await held.release(held.running()[0]!);
      expect(held.running().map((job) => job.partition)).toEqual(['b', 'c']);
      expect(held.scheduler.size).toBe(4);
    });

    it('runs the items of one partition in the order they were queued, never two at once', async () => {
      const held = heldScheduler(4);
      held.enqueue('a', 't', 3);
      expect(held.running()).toHaveLength(1);
      while (held.running().length > 0) await held.release(held.running()[0]!);
      expect(held.started.map((job) => job.index)).toEqual([0, 1, 2]);
      await held.scheduler.whenIdle();
      expect(held.scheduler.size).toBe(0);
    });
  });

  describe('given one tenant with many busy partitions and another that arrives later', () => {
    it('gives the next free slot to the tenant with fewer items running', async () => {
      const held = heldScheduler(4);
      for (const partition of ['a1', 'a2', 'a3', 'a4', 'a5', 'a6']) held.enqueue(partition, 'acme');
      held.enqueue('b1', 'globex');
      held.enqueue('b2', 'globex');
      expect(held.running().map((job) => job.partition)).toEqual(['a1', 'a2', 'a3', 'a4']);
      await held.release(held.running()[0]!);
      expect(held.running().map((job) => job.partition)).toEqual(['a2', 'a3', 'a4', 'b1']);
      await held.release(held.running()[0]!);
      expect(held.running().map((job) => job.partition)).toEqual(['a3', 'a4', 'b1', 'b2']);
      await held.release(held.running()[0]!);
      expect(held.running().map((job) => job.partition)).toEqual(['a4', 'b1', 'b2', 'a5']);
    });

    it('alternates between tenants that queued at the same time', async () => {
      const order: string[] = [];
      const scheduler = new PartitionScheduler<string>({
        concurrency: 1,
        run: (partition) => {
          order.push(partition);
          return Promise.resolve();
        },
      });
      scheduler.enqueue('blocker', 'other', 'blocker');
      for (const partition of ['a1', 'a2', 'a3']) scheduler.enqueue(partition, 'acme', partition);
      for (const partition of ['b1', 'b2']) scheduler.enqueue(partition, 'globex', partition);
      await scheduler.whenIdle();
      expect(order).toEqual(['blocker', 'a1', 'b1', 'a2', 'b2', 'a3']);
    });

    it('keeps slots for others with maxPerTenant: the busy tenant never holds more', () => {
      const held = heldScheduler(4, 2);
      for (let index = 0; index < 10; index += 1) held.enqueue(`a${index}`, 'acme');
      expect(held.running()).toHaveLength(2);
      held.enqueue('b1', 'globex');
      expect(held.running().map((job) => job.partition)).toEqual(['a0', 'a1', 'b1']);
    });
  });

  describe('when a partition is dropped or the scheduler closed', () => {
    it('returns the queued items and lets the running one finish', async () => {
      const held = heldScheduler(1);
      held.enqueue('a', 't', 3);
      expect(held.scheduler.dropQueued('a').map((job) => job.index)).toEqual([1, 2]);
      expect(held.scheduler.size).toBe(1);
      held.enqueue('b', 't', 2);
      expect(held.scheduler.close().map((job) => job.partition)).toEqual(['b', 'b']);
      const idle = held.scheduler.whenIdle();
      await held.release(held.running()[0]!);
      await idle;
      expect(held.started).toHaveLength(1);
    });
  });
});
