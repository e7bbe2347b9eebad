// The coarse filter EventStoreDB applies to a subscription to `$all` on the server (the adapter
// applies the exact port filter to what arrives), and the checkpoints the server reports while
// it passes over events the filter refuses.
import { eventTypeFilter, streamNameFilter, type Filter, type Position } from '@eventstore/db-client';
import { ERASURE_EVENT_TYPE, type EventFilter } from '../port';
import { ANCHOR_STREAM, CHECKPOINT_STREAM_PREFIX, ERASURE_STREAM } from './esdb-mapping';

/** A subscription's checkpoints come every this many times 32 events the server passes over. */
export const DEFAULT_CHECKPOINT_INTERVAL_MULTIPLIER = 32;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Stream names of everything but system streams, the anchor log and the checkpoints. The erasure
 * log always passes: the adapter reads it to hide an erased stream's later events from a
 * subscription.
 */
const USER_STREAMS = `^(?!\\$|${escapeRegex(ANCHOR_STREAM)}$|${escapeRegex(CHECKPOINT_STREAM_PREFIX)})`;

/** What a server-side filter reports while it passes over events: a checkpoint every so often. */
export interface CheckpointReports {
  /** Checkpoints every this many times 32 events the server reads (EventStoreDB's multiplier). */
  readonly checkpointInterval: number;
  readonly checkpointReached: (subscription: unknown, position: Position) => void;
}

/** The coarse server-side filter of a port filter, reporting checkpoints as `checkpoints` says. */
export function serverFilter(filter: EventFilter | undefined, checkpoints: CheckpointReports): Filter {
  const streamPrefixes = filter?.streamPrefixes ?? [];
  if (streamPrefixes.length > 0) {
    return streamNameFilter({ prefixes: [...streamPrefixes, ERASURE_STREAM], ...checkpoints });
  }
  const eventTypes = filter?.eventTypes ?? [];
  if (eventTypes.length > 0) {
    return eventTypeFilter({
      prefixes: [
        ...eventTypes.map((type) => (type.endsWith('*') ? type.slice(0, -1) : type)),
        ERASURE_EVENT_TYPE,
      ],
      ...checkpoints,
    });
  }
  return streamNameFilter({ regex: USER_STREAMS, ...checkpoints });
}
