// Subscriber checkpoints on EventStoreDB: one stream per subscriber,
// `strata-checkpoint-[<namespace>-]<subscriber>`, whose metadata says `maxCount: 1` so the server
// keeps only the latest checkpoint readable (older ones go at the next scavenge). Positions are
// stored as decimal strings (event data is JSON, which has no bigints). The event store never
// shows these streams in `readAll` or subscriptions. Reads always run to their end: a gRPC read
// abandoned half-way would keep the client from disposing.
import {
  BACKWARDS,
  END,
  StreamNotFoundError,
  jsonEvent,
  type EventStoreDBClient,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { z } from 'zod';
import type { CheckpointStore } from '../port';
import { CHECKPOINT_EVENT_TYPE, CHECKPOINT_STREAM_PREFIX } from './esdb-mapping';

const checkpointSchema = z.object({ position: z.string().regex(/^\d+$/) });

export interface EsdbCheckpointStoreOptions {
  /** Separates the checkpoints of several deployments (or test runs) on one server. */
  readonly namespace?: string;
}

export class EsdbCheckpointStore implements CheckpointStore {
  private readonly prepared = new Set<string>();

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly options: EsdbCheckpointStoreOptions = {},
  ) {}

  /** The stream holding a subscriber's checkpoints. */
  streamOf(subscriberId: string): string {
    const namespace = this.options.namespace;
    return `${CHECKPOINT_STREAM_PREFIX}${namespace === undefined ? '' : `${namespace}-`}${subscriberId}`;
  }

  async load(subscriberId: string): Promise<bigint | null> {
    const latest: ResolvedEvent[] = [];
    try {
      const read = this.client.readStream(this.streamOf(subscriberId), {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: 1,
      });
      for await (const resolved of read) latest.push(resolved);
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
    const event = latest[0]?.event;
    if (event === undefined || event.type !== CHECKPOINT_EVENT_TYPE) return null;
    return BigInt(checkpointSchema.parse(event.data).position);
  }

  async store(subscriberId: string, position: bigint): Promise<void> {
    const streamId = this.streamOf(subscriberId);
    if (!this.prepared.has(streamId)) {
      await this.client.setStreamMetadata(streamId, { maxCount: 1 });
      this.prepared.add(streamId);
    }
    await this.client.appendToStream(
      streamId,
      jsonEvent({ type: CHECKPOINT_EVENT_TYPE, data: { position: position.toString(10) } }),
    );
  }
}
