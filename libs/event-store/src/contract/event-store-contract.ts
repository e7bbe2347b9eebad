// The one contract suite for every event-store adapter (STYLE.md habit 7): call it from an
// adapter's spec with a factory of fresh stores and the adapter's declared differences.
import {
  type ContractStore,
  type ContractStoreFactory,
  type EventStoreContractFeatures,
} from './contract-support';
import { describeAppendContract } from './append-contract';
import { describeConcurrencyContract } from './concurrency-contract';
import { describeMetadataAndErasureContract } from './metadata-erasure-contract';
import { describePagingContract } from './paging-contract';
import { describeReadContract } from './read-contract';
import { describeSubscriptionContract } from './subscription-contract';
import { describeTenantFilterContract } from './tenant-filter-contract';

const defaultFeatures: Required<EventStoreContractFeatures> = {
  uniqueEventIds: true,
  erasureRemovesFromReadAll: true,
  revivesErasedStreams: true,
  concurrentWriters: 8,
  eventsPerWriter: 10,
  messageTimeoutMs: 5_000,
};

/**
 * Registers the contract tests. `factory` gives a store for one test and a `cleanup` run after
 * it. The tests use stream names private to each test, so a shared server works too.
 */
export function describeEventStoreContract(
  name: string,
  factory: ContractStoreFactory,
  features: EventStoreContractFeatures = {},
): void {
  describe(`${name} (event-store contract)`, () => {
    let current: ContractStore | undefined;

    beforeEach(async () => {
      current = await factory();
    });

    afterEach(async () => {
      await current?.cleanup();
      current = undefined;
    });

    const context = {
      store: () => {
        if (current === undefined) throw new Error('the contract store is only available inside a test');
        return current.store;
      },
      openStore: factory,
      features: { ...defaultFeatures, ...features },
    };

    describeAppendContract(context);
    describeReadContract(context);
    describeSubscriptionContract(context);
    describeTenantFilterContract(context);
    describePagingContract(context);
    describeMetadataAndErasureContract(context);
    describeConcurrencyContract(context);
  });
}
