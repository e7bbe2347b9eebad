// RUNNABLE EXAMPLE (documentation, README "Event stream"): a service that learns of compactions
// natively from EventStoreDB, without the engine's HTTP stream — a catch-up subscription to
// `$all` filtered to `CompactionCompleted` events, resumed from a checkpoint file it keeps
// itself. Its positions are the same numbers the engine's SSE stream uses as event ids.
//
//   ESDB_CONNECTION_STRING=esdb://localhost:2113?tls=false \
//     node bin/run-ts.js apps/engine/src/events-stream/examples/esdb-compaction-subscriber.ts compactions.checkpoint
//
// It prints one JSON line per compaction: {position, sessionId, tenant, attemptId, trigger, summary}.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import {
  BACKWARDS,
  EventStoreDBClient,
  START,
  eventTypeFilter,
  type AllStreamResolvedEvent,
  type ReadPosition,
} from '@eventstore/db-client';
import { SESSION_STREAM_PREFIX, compactionCompletedSchema, entryAppendedSchema } from '@strata/session';

export interface CompactionNotice {
  /** The global position (the engine's SSE id of the matching `session_compact`). */
  readonly position: string;
  readonly sessionId: string;
  readonly tenant: string;
  readonly attemptId: string;
  readonly trigger: string;
  /** The summary of the compaction entry (read from the event just before). */
  readonly summary: string | null;
}

export interface FollowOptions {
  /** Where the last handled position is kept; the subscription resumes after it. */
  readonly checkpointFile?: string;
  readonly onCompaction: (notice: CompactionNotice) => void | Promise<void>;
  /** Stop after this many compactions (otherwise: until the signal aborts). */
  readonly maxEvents?: number;
  readonly signal?: AbortSignal;
}

function readCheckpoint(file: string | undefined): ReadPosition {
  if (file === undefined) return START;
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return START;
  }
  if (!/^\d+$/.test(text)) throw new Error(`checkpoint ${file} holds no position`);
  return { commit: BigInt(text), prepare: BigInt(text) };
}

function writeCheckpoint(file: string, position: bigint): void {
  writeFileSync(`${file}.tmp`, `${position}\n`);
  renameSync(`${file}.tmp`, file);
}

/** The summary of the compaction entry `entryId`, appended right before the completion. */
async function summaryOf(client: EventStoreDBClient, streamId: string, revision: bigint, entryId: string) {
  if (revision === 0n) return null;
  let previous: unknown;
  // Read to the end (one event) rather than returning mid-iteration, which would leave the read open.
  for await (const resolved of client.readStream(streamId, {
    direction: BACKWARDS,
    fromRevision: revision - 1n,
    maxCount: 1,
  })) {
    previous = resolved.event?.data;
  }
  const parsed = entryAppendedSchema.shape.data.safeParse(previous);
  if (parsed.success && parsed.data.entry.id === entryId && parsed.data.entry.type === 'compaction') {
    return parsed.data.entry.summary;
  }
  return null;
}

async function noticeOf(client: EventStoreDBClient, resolved: AllStreamResolvedEvent) {
  const event = resolved.event;
  if (event === undefined || !event.streamId.startsWith(SESSION_STREAM_PREFIX)) return undefined;
  const data = compactionCompletedSchema.shape.data.safeParse(event.data);
  if (!data.success) return undefined;
  const metadata = event.metadata as Record<string, unknown> | undefined;
  const tenant = typeof metadata?.['tenant'] === 'string' ? metadata['tenant'] : 'default';
  const notice: CompactionNotice = {
    position: event.position.commit.toString(),
    sessionId: event.streamId.slice(SESSION_STREAM_PREFIX.length),
    tenant,
    attemptId: data.data.attemptId,
    trigger: data.data.trigger,
    summary: await summaryOf(client, event.streamId, event.revision, data.data.entryId),
  };
  return { notice, position: event.position.commit };
}

/** Follows compactions until `maxEvents` were handled or the signal aborts. Returns how many. */
export async function followCompactions(client: EventStoreDBClient, options: FollowOptions): Promise<number> {
  const subscription = client.subscribeToAll({
    fromPosition: readCheckpoint(options.checkpointFile),
    filter: eventTypeFilter({ prefixes: ['CompactionCompleted'] }),
  });
  const stop = (): void => void subscription.unsubscribe();
  options.signal?.addEventListener('abort', stop);
  let handled = 0;
  try {
    for await (const resolved of subscription) {
      const found = await noticeOf(client, resolved);
      if (found === undefined) continue;
      await options.onCompaction(found.notice);
      if (options.checkpointFile !== undefined) writeCheckpoint(options.checkpointFile, found.position);
      handled += 1;
      if (options.maxEvents !== undefined && handled >= options.maxEvents) break;
    }
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await subscription.unsubscribe();
  }
  return handled;
}

if (require.main === module) {
  const connectionString = process.env['ESDB_CONNECTION_STRING'] ?? 'esdb://localhost:2113?tls=false';
  const client = EventStoreDBClient.connectionString(connectionString);
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  followCompactions(client, {
    ...(process.argv[2] !== undefined ? { checkpointFile: process.argv[2] } : {}),
    onCompaction: (notice) => void process.stdout.write(`${JSON.stringify(notice)}\n`),
    signal: controller.signal,
  })
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    })
    .finally(() => void client.dispose());
}
