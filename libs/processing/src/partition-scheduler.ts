// Runs queued work partition by partition: the items of one partition one at a time and in
// the order they were queued, different partitions at once up to `concurrency`, and the free
// slots shared fairly between tenants — a slot that frees goes to the tenant with the fewest
// items running (ties: the one served longest ago), and no tenant holds more than
// `maxPerTenant` slots, so one tenant with many busy partitions never takes every slot. A
// partition gives its slot back after each item and queues again behind the others.
import { Fifo } from './fifo';

export interface PartitionSchedulerOptions<Item> {
  readonly concurrency: number;
  /** At most this many slots per tenant; `concurrency` by default. */
  readonly maxPerTenant?: number;
  /** Does one item; must not reject (a rejection is reported to `onUnexpected`). */
  readonly run: (partition: string, item: Item) => Promise<void>;
  readonly onUnexpected?: (error: unknown) => void;
}

interface Partition<Item> {
  readonly key: string;
  readonly tenant: TenantQueue<Item>;
  readonly items: Fifo<Item>;
  running: boolean;
  ready: boolean;
}

interface TenantQueue<Item> {
  readonly name: string;
  readonly ready: Fifo<Partition<Item>>;
  running: number;
  servedAt: number;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, not ${value}`);
  return value;
}

export class PartitionScheduler<Item> {
  private readonly concurrency: number;
  private readonly maxPerTenant: number;
  private readonly partitions = new Map<string, Partition<Item>>();
  private readonly tenants = new Map<string, TenantQueue<Item>>();
  private running = 0;
  private queued = 0;
  private closed = false;
  private tick = 0;
  private idleWaiters: (() => void)[] = [];
  private changeWaiters: (() => void)[] = [];

  constructor(private readonly options: PartitionSchedulerOptions<Item>) {
    this.concurrency = positiveInteger(options.concurrency, 'concurrency');
    this.maxPerTenant = Math.min(
      positiveInteger(options.maxPerTenant ?? this.concurrency, 'maxPerTenant'),
      this.concurrency,
    );
  }

  /** Items queued or running. */
  get size(): number {
    return this.queued + this.running;
  }

  get runningCount(): number {
    return this.running;
  }

  /** Running items by tenant (tenants with none running are left out). */
  runningByTenant(): ReadonlyMap<string, number> {
    const counts = new Map<string, number>();
    for (const tenant of this.tenants.values())
      if (tenant.running > 0) counts.set(tenant.name, tenant.running);
    return counts;
  }

  enqueue(partitionKey: string, tenantName: string, item: Item): void {
    if (this.closed) throw new Error('the scheduler is closed');
    const partition = this.partitionOf(partitionKey, tenantName);
    partition.items.push(item);
    this.queued += 1;
    if (!partition.running) this.makeReady(partition);
    this.dispatch();
  }

  /** Removes the items still queued for a partition (the running one goes on); returns them. */
  dropQueued(partitionKey: string): Item[] {
    const partition = this.partitions.get(partitionKey);
    if (partition === undefined) return [];
    const dropped = partition.items.drain();
    this.queued -= dropped.length;
    if (!partition.running) this.forget(partition);
    this.notifyChange();
    return dropped;
  }

  /**
   * Stops starting items: the queued ones are removed and returned (oldest first, across
   * partitions), the running ones go on to their end (await `whenIdle`).
   */
  close(): Item[] {
    this.closed = true;
    const dropped: Item[] = [];
    for (const partition of this.partitions.values()) dropped.push(...partition.items.drain());
    this.queued = 0;
    for (const partition of [...this.partitions.values()]) this.forget(partition);
    this.notifyChange();
    return dropped;
  }

  /** Resolves once nothing is queued or running. */
  whenIdle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Resolves at the next item finished or dropped (for waiting until there is room). */
  whenChanged(): Promise<void> {
    return new Promise((resolve) => this.changeWaiters.push(resolve));
  }

  private partitionOf(key: string, tenantName: string): Partition<Item> {
    const existing = this.partitions.get(key);
    if (existing !== undefined) return existing;
    let tenant = this.tenants.get(tenantName);
    if (tenant === undefined) {
      tenant = { name: tenantName, ready: new Fifo(), running: 0, servedAt: 0 };
      this.tenants.set(tenantName, tenant);
    }
    const partition: Partition<Item> = { key, tenant, items: new Fifo(), running: false, ready: false };
    this.partitions.set(key, partition);
    return partition;
  }

  private makeReady(partition: Partition<Item>): void {
    if (partition.ready || partition.items.length === 0) return;
    partition.ready = true;
    partition.tenant.ready.push(partition);
  }

  private dispatch(): void {
    while (!this.closed && this.running < this.concurrency) {
      const tenant = this.nextTenant();
      if (tenant === undefined) return;
      const partition = this.nextReadyPartition(tenant);
      if (partition === undefined) continue;
      const item = partition.items.shift()!;
      this.queued -= 1;
      partition.running = true;
      tenant.running += 1;
      tenant.servedAt = ++this.tick;
      this.running += 1;
      void this.runOne(partition, item);
    }
  }

  /** The tenant the next free slot goes to; undefined when none may take one. */
  private nextTenant(): TenantQueue<Item> | undefined {
    let chosen: TenantQueue<Item> | undefined;
    for (const tenant of this.tenants.values()) {
      if (tenant.ready.length === 0 || tenant.running >= this.maxPerTenant) continue;
      if (
        chosen === undefined ||
        tenant.running < chosen.running ||
        (tenant.running === chosen.running && tenant.servedAt < chosen.servedAt)
      ) {
        chosen = tenant;
      }
    }
    return chosen;
  }

  private nextReadyPartition(tenant: TenantQueue<Item>): Partition<Item> | undefined {
    for (let partition = tenant.ready.shift(); partition !== undefined; partition = tenant.ready.shift()) {
      partition.ready = false;
      if (partition.items.length > 0 && !partition.running) return partition;
    }
    if (tenant.running === 0) this.tenants.delete(tenant.name);
    return undefined;
  }

  private async runOne(partition: Partition<Item>, item: Item): Promise<void> {
    try {
      await this.options.run(partition.key, item);
    } catch (error) {
      this.options.onUnexpected?.(error);
    } finally {
      partition.running = false;
      partition.tenant.running -= 1;
      this.running -= 1;
      if (partition.items.length > 0) this.makeReady(partition);
      else this.forget(partition);
      this.dispatch();
      this.notifyChange();
    }
  }

  private forget(partition: Partition<Item>): void {
    if (partition.running || partition.items.length > 0) return;
    this.partitions.delete(partition.key);
    const { tenant } = partition;
    if (tenant.running === 0 && tenant.ready.length === 0) this.tenants.delete(tenant.name);
  }

  private notifyChange(): void {
    const changed = this.changeWaiters;
    this.changeWaiters = [];
    for (const wake of changed) wake();
    if (this.size > 0) return;
    const idle = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of idle) wake();
  }
}
