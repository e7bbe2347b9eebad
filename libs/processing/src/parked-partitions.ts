// Partitions a processor has set aside (failure policy `park`): the event it could not handle,
// why, and when. Kept beside the checkpoints of durable processors, so a restart does not apply
// a parked stream's later events on top of a state that missed one; a rebuild releases them.

export interface ParkedPartition {
  readonly processor: string;
  readonly partition: string;
  readonly tenant: string;
  /** The event that could not be handled. */
  readonly eventId: string;
  readonly eventType: string;
  readonly position: bigint;
  readonly reason: string;
  /** ISO time it was parked. */
  readonly parkedAt: string;
}

export interface ParkedPartitionStore {
  /** Every partition the processor has parked. */
  list(processor: string): Promise<readonly ParkedPartition[]>;
  /** Records a parked partition (a second record of the same partition replaces the first). */
  park(record: ParkedPartition): Promise<void>;
  /** Releases one partition of the processor, or all of them. */
  release(processor: string, partition?: string): Promise<void>;
}

export class InMemoryParkedPartitionStore implements ParkedPartitionStore {
  private readonly records = new Map<string, Map<string, ParkedPartition>>();

  list(processor: string): Promise<readonly ParkedPartition[]> {
    return Promise.resolve([...(this.records.get(processor)?.values() ?? [])]);
  }

  park(record: ParkedPartition): Promise<void> {
    const parked = this.records.get(record.processor) ?? new Map<string, ParkedPartition>();
    parked.set(record.partition, record);
    this.records.set(record.processor, parked);
    return Promise.resolve();
  }

  release(processor: string, partition?: string): Promise<void> {
    if (partition === undefined) this.records.delete(processor);
    else this.records.get(processor)?.delete(partition);
    return Promise.resolve();
  }
}
