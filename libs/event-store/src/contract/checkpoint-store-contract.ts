// The contract of CheckpointStore adapters: unknown subscribers load null; the last stored
// position wins (also when it moves back, as a rebuild does); subscribers are independent.
import type { CheckpointStore } from '../port';

export function describeCheckpointStoreContract(
  name: string,
  factory: () => Promise<{ readonly checkpoints: CheckpointStore; readonly cleanup: () => Promise<void> }>,
): void {
  describe(`${name} (checkpoint-store contract)`, () => {
    let current: { readonly checkpoints: CheckpointStore; readonly cleanup: () => Promise<void> } | undefined;

    beforeEach(async () => {
      current = await factory();
    });

    afterEach(async () => {
      await current?.cleanup();
    });

    it('loads null for a subscriber that never stored a position', async () => {
      expect(await current!.checkpoints.load('unknown')).toBeNull();
    });

    it('loads the last stored position of each subscriber independently', async () => {
      const { checkpoints } = current!;
      await checkpoints.store('catalog', 5n);
      await checkpoints.store('catalog', 9_007_199_254_740_993n);
      await checkpoints.store('audit', 2n);
      await checkpoints.store('audit', 1n);
      expect(await checkpoints.load('catalog')).toBe(9_007_199_254_740_993n);
      expect(await checkpoints.load('audit')).toBe(1n);
    });
  });
}
