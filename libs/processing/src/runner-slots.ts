// What a runner's options make of its processors: one slot each (their names unique), with the
// settings the options give or the defaults and the options' failure reports, and the filter of
// the runner's subscription (the processors' event types in the configured streams, erasures
// included when a processor erases).
import type { EventFilter } from '@strata/event-store';
import { InMemoryParkedPartitionStore, type ParkedPartitionStore } from './parked-partitions';
import {
  DEFAULT_CHECKPOINT_INTERVAL,
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_DELIVERIES,
  DEFAULT_RETRY_DELAY_MS,
  type ProcessorRunnerOptions,
} from './processor-runner-types';
import { ProcessorSlot, type SlotCallbacks, type SlotSettings } from './processor-slot';

/** The slots of the options' processors; `runnerCallbacks` tie them to their runner. */
export function createSlots<Message>(
  options: ProcessorRunnerOptions<Message>,
  runnerCallbacks: Pick<SlotCallbacks, 'onFailure' | 'onFlushed' | 'isLive' | 'isCatchingUp'>,
): ProcessorSlot<Message>[] {
  const names = new Set<string>();
  for (const processor of options.processors) {
    if (names.has(processor.name)) throw new Error(`two processors are called '${processor.name}'`);
    names.add(processor.name);
  }
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const settings: SlotSettings = {
    concurrency,
    maxPerTenant: options.maxPerTenant ?? concurrency,
    maxDeliveries: options.maxDeliveries ?? DEFAULT_MAX_DELIVERIES,
    retryDelayMs: options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
    checkpointInterval: options.checkpointInterval ?? DEFAULT_CHECKPOINT_INTERVAL,
    clock: options.clock ?? (() => new Date()),
  };
  const parked: ParkedPartitionStore = options.parked ?? new InMemoryParkedPartitionStore();
  const callbacks: SlotCallbacks = {
    onDeliveryFailed: options.onDeliveryFailed,
    onGivenUp: options.onGivenUp,
    onParked: options.onParked,
    ...runnerCallbacks,
  };
  return options.processors.map(
    (processor) => new ProcessorSlot(processor, settings, options.checkpoints, parked, callbacks),
  );
}

/** The subscription's filter: the processors' event types in the configured streams. */
export function subscriptionFilter<Message>(options: ProcessorRunnerOptions<Message>): EventFilter {
  return {
    eventTypes: [...new Set(options.processors.flatMap((processor) => processor.eventTypes))],
    ...(options.streamPrefixes !== undefined ? { streamPrefixes: options.streamPrefixes } : {}),
    ...(options.processors.some((processor) => processor.erase !== undefined)
      ? { includeErasures: true }
      : {}),
  };
}
