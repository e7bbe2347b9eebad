// A CheckpointStore kept in memory, for tests and for subscribers that restart from scratch.
import type { CheckpointStore } from '../port';

export class InMemoryCheckpointStore implements CheckpointStore {
  private readonly positions = new Map<string, bigint>();

  load(subscriberId: string): Promise<bigint | null> {
    return Promise.resolve(this.positions.get(subscriberId) ?? null);
  }

  store(subscriberId: string, position: bigint): Promise<void> {
    this.positions.set(subscriberId, position);
    return Promise.resolve();
  }
}
