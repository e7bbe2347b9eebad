// What a store's signed log says about the store, besides the anchors it hands to the stream
// checks (decision 0018): the log's own chain (log-check.ts), the store's erasure records held
// against the signed erasures (a record no signed erasure backs, one whose fields differ, a signed
// erasure whose record was deleted, a checkpoint that saw a stream erased with no signed erasure
// for it), how old the newest checkpoint is and how much the store holds past it, and, against an
// exported copy of the log, entries the store's log no longer holds or holds otherwise.
import {
  ERASURE_LOG_STREAM,
  SqliteEventStore,
  type ErasureRecord,
  type EventStore,
} from '@strata/event-store';
import type { AnchorCandidate } from '../anchors/anchor-index';
import { SIGNED_ERASURE_FIELDS, type ErasureLogEntry } from './log-entry';
import { LogCheck, type CheckpointSummary, type LogFinding } from './log-check';
import type { LoggedItem } from './log-storage';
import type { SignedLog } from './signed-log';

export type StoreLogFinding =
  | LogFinding
  /** An erasure record of the store that no signed erasure entry backs (forged, or its time edited). */
  | { readonly kind: 'erasure_unsigned'; readonly record: ErasureRecord }
  /** An erasure record whose fields differ from the signed erasure entry of the same stream and time. */
  | {
      readonly kind: 'erasure_altered';
      readonly record: ErasureRecord;
      readonly position: string;
      readonly fields: readonly string[];
    }
  /** A signed erasure that was carried out, whose record the store no longer holds. */
  | { readonly kind: 'erasure_record_missing'; readonly entry: ErasureLogEntry }
  /** A checkpoint saw the stream erased, and no signed erasure entry stands for it. */
  | { readonly kind: 'erased_unsigned'; readonly streamId: string; readonly checkpoint: string }
  /** The exported copy holds entries past the store's log end (the log was cut). */
  | { readonly kind: 'log_truncated'; readonly storeEnd: string; readonly exportedEnd: string }
  /** The store's log holds another entry at a position than the exported copy. */
  | {
      readonly kind: 'log_diverged';
      readonly position: string;
      readonly storeHash: string;
      readonly exportedHash: string;
    };

export interface NewestCheckpoint extends CheckpointSummary {
  /** Seconds between its signature and the verification. */
  readonly ageSeconds: number;
  /** Events the store holds past the checkpoint's store position (SQLite; null where it cannot count them). */
  readonly eventsAfter: number | null;
}

export interface StoreLogIntegrity {
  /** Whether the store keeps a chained log at all (a store written before decision 0018 has only legacy anchors). */
  readonly chained: boolean;
  readonly entries: number;
  readonly legacyAnchors: number;
  readonly findings: readonly StoreLogFinding[];
  readonly newestCheckpoint: NewestCheckpoint | undefined;
  /**
   * The signed erasure that stands for each erased stream (the latest carried out), for the stream
   * checks; undefined when the log has no checkpoint yet, and the store's records are used as before.
   */
  readonly signedErasures: ReadonlyMap<string, ErasureRecord> | undefined;
}

/** Reads the store's log once through `check`, handing on the anchors it attests. */
export async function* storeLogCandidates(log: SignedLog, check: LogCheck): AsyncGenerator<AnchorCandidate> {
  for await (const item of log.entries()) yield* check.add(item);
  check.finish();
}

function recordOf(entry: ErasureLogEntry): ErasureRecord {
  return {
    streamId: entry.streamId,
    actor: entry.actor,
    reason: entry.reason,
    ...(entry.tenant !== undefined ? { tenant: entry.tenant } : {}),
    erasedAt: entry.erasedAt,
    eventCount: entry.eventCount,
    ...(entry.headHash !== undefined ? { headHash: entry.headHash } : {}),
    ...(entry.headRevision !== undefined ? { headRevision: entry.headRevision } : {}),
  };
}

function differingFields(record: ErasureRecord, entry: ErasureLogEntry): string[] {
  const signed = recordOf(entry) as unknown as Record<string, unknown>;
  const stored = record as unknown as Record<string, unknown>;
  return SIGNED_ERASURE_FIELDS.filter((field) => stored[field] !== signed[field]);
}

const keyOf = (streamId: string, erasedAt: string): string => `${streamId}\n${erasedAt}`;

async function eventsAfter(store: EventStore, storePosition: bigint): Promise<number | null> {
  if (!(store instanceof SqliteEventStore)) return null;
  await Promise.resolve();
  const row = store.database
    .prepare<[bigint, string], { count: number | bigint }>(
      'SELECT count(*) AS count FROM events WHERE global_position > ? AND stream_id <> ?',
    )
    .get(storePosition, ERASURE_LOG_STREAM);
  return Number(row?.count ?? 0);
}

/** The erasure checks and the newest checkpoint, once `check` has read the whole log. */
export async function finishStoreLog(
  store: EventStore,
  check: LogCheck,
  now: Date = new Date(),
): Promise<StoreLogIntegrity> {
  const findings: StoreLogFinding[] = [...check.findings];
  const newest = check.newestCheckpoint;
  const chained = check.entries > 0;
  if (newest === undefined) {
    return {
      chained,
      entries: check.entries,
      legacyAnchors: check.legacyAnchors,
      findings,
      newestCheckpoint: undefined,
      signedErasures: undefined,
    };
  }
  const signedByKey = new Map<string, ErasureLogEntry>();
  for (const entry of check.erasures) signedByKey.set(keyOf(entry.streamId, entry.erasedAt), entry);
  const matched = new Set<string>();
  const signedErasures = new Map<string, ErasureRecord>();
  for (const record of await store.listErasures()) {
    const key = keyOf(record.streamId, record.erasedAt);
    const entry = signedByKey.get(key);
    if (entry === undefined) {
      findings.push({ kind: 'erasure_unsigned', record });
      continue;
    }
    matched.add(key);
    const fields = differingFields(record, entry);
    if (fields.length > 0)
      findings.push({ kind: 'erasure_altered', record, position: entry.position, fields });
    signedErasures.set(entry.streamId, recordOf(entry));
  }
  const signedStreams = new Set(check.erasures.map((entry) => entry.streamId));
  for (const entry of check.erasures) {
    if (matched.has(keyOf(entry.streamId, entry.erasedAt))) continue;
    // unmatched: carried out (the stream is gone, or a checkpoint saw it erased) and its record deleted,
    // or never carried out (the stream still holds the head it named, or more)
    const gone =
      check.erasedEver.has(entry.streamId) || (await store.streamRevision(entry.streamId)) === null;
    if (!gone) continue;
    findings.push({ kind: 'erasure_record_missing', entry });
    if (!signedErasures.has(entry.streamId)) signedErasures.set(entry.streamId, recordOf(entry));
  }
  for (const [streamId, checkpoint] of check.erasedByCheckpoint) {
    if (!signedStreams.has(streamId)) findings.push({ kind: 'erased_unsigned', streamId, checkpoint });
  }
  return {
    chained,
    entries: check.entries,
    legacyAnchors: check.legacyAnchors,
    findings,
    newestCheckpoint: {
      ...newest,
      ageSeconds: Math.max(0, Math.round((now.getTime() - Date.parse(newest.time)) / 1000)),
      eventsAfter: await eventsAfter(store, BigInt(newest.storePosition)),
    },
    signedErasures,
  };
}

/**
 * Holds an exported copy of a log (its chained entries, in position order) against the store's log:
 * an entry the store holds otherwise at the same position, and entries past the store's end.
 */
export async function compareWithExport(
  log: SignedLog,
  exported: AsyncIterable<LoggedItem>,
): Promise<StoreLogFinding[]> {
  const findings: StoreLogFinding[] = [];
  const stored = log.entries()[Symbol.asyncIterator]();
  let current = await stored.next();
  let storeEnd = 0n;
  let exportedEnd: bigint | undefined;
  for await (const item of exported) {
    if (item.source !== 'chained') continue;
    const position = BigInt(item.entry.position);
    while (current.done !== true && positionOf(current.value) < position) {
      storeEnd = positionOf(current.value);
      current = await stored.next();
    }
    if (current.done === true) {
      exportedEnd = position;
      continue;
    }
    storeEnd = positionOf(current.value);
    if (storeEnd !== position) continue;
    const storeHash = current.value.source === 'chained' ? current.value.entry.hash : '';
    if (storeHash !== item.entry.hash) {
      findings.push({
        kind: 'log_diverged',
        position: item.entry.position,
        storeHash,
        exportedHash: item.entry.hash,
      });
    }
  }
  if (exportedEnd !== undefined) {
    findings.push({
      kind: 'log_truncated',
      storeEnd: storeEnd.toString(),
      exportedEnd: exportedEnd.toString(),
    });
  }
  return findings;
}

function positionOf(item: LoggedItem): bigint {
  return BigInt(item.source === 'unreadable' ? item.position : item.entry.position);
}
