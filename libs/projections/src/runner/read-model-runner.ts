// The read models as processors of the one runner of durable work (@strata/processing): each
// projection handles the validated session events of its types, one session's events in
// order, and parks a session whose event it cannot apply — or that cannot be read back at all
// — so that one bad stream sets that session aside instead of stopping the read side. Events
// are validated once for every projection (STYLE.md habit 15).
import {
  erasureRecordOfEvent,
  type CheckpointStore,
  type EventStore,
  type RecordedEvent,
} from '@strata/event-store';
import {
  ProcessorRunner,
  type DecodedEvent,
  type ParkedPartitionStore,
  type Processor,
  type ProcessorRunnerOptions,
} from '@strata/processing';
import { SESSION_STREAM_PREFIX } from '@strata/session';
import type { Projection } from './projection';
import {
  DEFAULT_TENANT,
  readProjectedEvent,
  sessionIdOfStream,
  tenantOf,
  type ProjectedEvent,
} from './projected-event';

export const READ_MODELS_RUNNER_NAME = 'read-models';
/** Read models have little to wait for; a few sessions at once is plenty. */
export const DEFAULT_READ_MODEL_CONCURRENCY = 4;

/** The checkpoint key of a projection (the same as before the runner was shared). */
export function projectionCheckpointId(projectionName: string): string {
  return `projections/${projectionName}`;
}

/** A projection as a processor of the runner. */
export function projectionProcessor(projection: Projection): Processor<ProjectedEvent> {
  return {
    name: projection.name,
    checkpointId: projectionCheckpointId(projection.name),
    durability: projection.durability,
    eventTypes: projection.eventTypes,
    onFailure: 'park',
    ...(projection.accepts !== undefined
      ? { accepts: (event: ProjectedEvent) => projection.accepts?.(event.sessionId) ?? true }
      : {}),
    handle: (event) => projection.apply(event),
    forget: (partition) => {
      const sessionId = sessionIdOfStream(partition);
      if (sessionId !== undefined) projection.forget?.(sessionId);
    },
    ...(projection.erase !== undefined
      ? {
          erase: async (partition: string) => {
            const sessionId = sessionIdOfStream(partition);
            if (sessionId !== undefined) await projection.erase?.(sessionId);
          },
        }
      : {}),
    flush: () => projection.flush(),
    reset: () => projection.reset(),
  };
}

/** Reads a recorded event for the read models: partitioned by stream, shared fairly by tenant. */
export function decodeSessionEvent(recorded: RecordedEvent): DecodedEvent<ProjectedEvent> {
  const erasure = erasureRecordOfEvent(recorded);
  if (erasure !== undefined) {
    if (sessionIdOfStream(erasure.streamId) === undefined) return { kind: 'pass' };
    return { kind: 'erased', partition: erasure.streamId, tenant: erasure.tenant ?? DEFAULT_TENANT };
  }
  if (sessionIdOfStream(recorded.streamId) === undefined) return { kind: 'pass' };
  const result = readProjectedEvent(recorded);
  if (result.kind === 'invalid') {
    return {
      kind: 'invalid',
      partition: recorded.streamId,
      tenant: tenantOf(recorded.metadata),
      detail: `${result.report.reason}: ${result.report.detail}`,
    };
  }
  return {
    kind: 'message',
    message: result.event,
    partition: recorded.streamId,
    tenant: result.event.tenant,
  };
}

export type ReadModelRunner = ProcessorRunner<ProjectedEvent>;

export interface ReadModelRunnerOptions extends Omit<
  ProcessorRunnerOptions<ProjectedEvent>,
  'name' | 'processors' | 'decode' | 'streamPrefixes' | 'store' | 'checkpoints' | 'parked'
> {
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
  readonly parked?: ParkedPartitionStore;
  readonly projections: readonly Projection[];
  /** Other processors of session events that share the subscription (the engine's metrics). */
  readonly processors?: readonly Processor<ProjectedEvent>[];
}

export function createReadModelRunner(options: ReadModelRunnerOptions): ReadModelRunner {
  const { projections, processors = [], ...runnerOptions } = options;
  return new ProcessorRunner({
    concurrency: DEFAULT_READ_MODEL_CONCURRENCY,
    ...runnerOptions,
    name: READ_MODELS_RUNNER_NAME,
    processors: [...projections.map(projectionProcessor), ...processors],
    decode: decodeSessionEvent,
    streamPrefixes: [SESSION_STREAM_PREFIX],
  });
}
