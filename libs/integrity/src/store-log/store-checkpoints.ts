// Signed checkpoints (decision 0018): what the whole store holds, written into its signed log. A
// checkpoint lists the heads of the streams written since the previous checkpoint's store position
// and the streams erased since, so that the log's checkpoints, read in order, name every stream's
// head: a session later deleted whole contradicts the checkpoint that recorded it. The first
// checkpoint of a store (its genesis) lists every stream, after signing, as found, the erasure
// records the store held before its log was chained.
import type { ErasureRecord, EventStore } from '@strata/event-store';
import type { AnchorSigningKey } from '../anchors/anchor';
import {
  MAX_CHECKPOINT_ERASED,
  MAX_CHECKPOINT_HEADS,
  MAX_CHECKPOINT_PART_STREAM_CHARACTERS,
  MAX_CHECKPOINT_STREAM_LENGTH,
  type CheckpointEntryBody,
  type ErasureEntryBody,
  type LogEntry,
} from './log-entry';
import type { EntryToLog, SignedLog } from './signed-log';
import { storeChangesSince, type StoreChanges } from './store-changes';

export interface CheckpointOptions {
  readonly time?: Date;
  /** Write a checkpoint even when nothing changed since the last one. */
  readonly force?: boolean;
}

/** The erasure entry that signs an erasure record. */
export function erasureEntryBody(record: ErasureRecord, adopted = false): ErasureEntryBody {
  return {
    kind: 'erasure',
    streamId: record.streamId,
    actor: record.actor,
    reason: record.reason,
    ...(record.tenant !== undefined ? { tenant: record.tenant } : {}),
    erasedAt: record.erasedAt,
    eventCount: record.eventCount,
    ...(record.headRevision !== undefined ? { headRevision: record.headRevision } : {}),
    ...(record.headHash !== undefined ? { headHash: record.headHash } : {}),
    ...(adopted ? { adopted: true as const } : {}),
  };
}

/** Items in groups of at most `most`, each group's stream ids at most `MAX_CHECKPOINT_PART_STREAM_CHARACTERS` long together. */
function chunks<Item>(items: readonly Item[], most: number, streamOf: (item: Item) => string): Item[][] {
  const groups: Item[][] = [];
  let group: Item[] = [];
  let characters = 0;
  for (const item of items) {
    const length = streamOf(item).length;
    if (
      group.length > 0 &&
      (group.length >= most || characters + length > MAX_CHECKPOINT_PART_STREAM_CHARACTERS)
    ) {
      groups.push(group);
      group = [];
      characters = 0;
    }
    group.push(item);
    characters += length;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/**
 * The checkpoint's entries: one, or as many parts as its heads and erased streams need (each part
 * at most 1,000 of each, and short enough for one exported line). Streams whose ids are longer than
 * `MAX_CHECKPOINT_STREAM_LENGTH` are left out: no entry could name them.
 */
export function checkpointBodies(from: bigint, changes: StoreChanges): CheckpointEntryBody[] {
  const named = (stream: string): boolean => stream.length <= MAX_CHECKPOINT_STREAM_LENGTH;
  const heads = chunks(
    changes.heads.filter((head) => named(head.stream)),
    MAX_CHECKPOINT_HEADS,
    (head) => head.stream,
  );
  const erased = chunks(changes.erased.filter(named), MAX_CHECKPOINT_ERASED, (stream) => stream);
  const parts = Math.max(1, heads.length, erased.length);
  const bodies: CheckpointEntryBody[] = [];
  for (let part = 0; part < parts; part += 1) {
    bodies.push({
      kind: 'checkpoint',
      fromStorePosition: from.toString(),
      storePosition: changes.storePosition.toString(),
      streams: changes.streams,
      events: changes.events === null ? null : changes.events.toString(),
      heads: heads[part] ?? [],
      erased: erased[part] ?? [],
      part: part + 1,
      parts,
    });
  }
  return bodies;
}

/** Erasure records of the store that no erasure entry of the log signs yet (keyed by stream and time). */
async function unsignedErasures(store: EventStore, log: SignedLog): Promise<ErasureRecord[]> {
  const signed = new Set<string>();
  for await (const item of log.entries()) {
    if (item.source === 'chained' && item.entry.kind === 'erasure')
      signed.add(`${item.entry.streamId}\n${item.entry.erasedAt}`);
  }
  return (await store.listErasures()).filter(
    (record) => !signed.has(`${record.streamId}\n${record.erasedAt}`),
  );
}

/**
 * Writes a checkpoint of the store into its log, unless nothing changed since the last one (and
 * `force` is not set). Returns the entries written (none when nothing changed).
 */
export async function writeCheckpoint(
  store: EventStore,
  log: SignedLog,
  key: AnchorSigningKey,
  options: CheckpointOptions = {},
): Promise<readonly LogEntry[]> {
  const time = options.time ?? new Date();
  const last = await log.storage.lastCheckpoint();
  const from = last === undefined ? -1n : BigInt(last.storePosition);
  const adopted =
    last === undefined
      ? (await unsignedErasures(store, log)).map((record) => erasureEntryBody(record, true))
      : [];
  const changes = await storeChangesSince(store, from);
  const unchanged =
    changes.storePosition === from && changes.heads.length === 0 && changes.erased.length === 0;
  if (last !== undefined && unchanged && options.force !== true) return [];
  const entries: EntryToLog[] = [...adopted, ...checkpointBodies(from, changes)].map((body) => ({
    body,
    time,
  }));
  return log.append(entries, key);
}
