// Verification that holds against removal as well as alteration (issue 14): a stream's hash
// chain, checked against the store's own record of the stream's last revision (a cut tail shows
// as revisions the store counted and the chain lacks), against retention metadata, and against
// signed anchors kept elsewhere (a stream shorter than an anchor, or whose hash differs at its
// revision, names the anchor). An erasure record answers for the events and anchors it removed.
// Works on a store (one stream, or every stream in one pass over the log) and on an exported
// event file with no store at all.
import {
  type ErasureRecord,
  type EventFilter,
  type EventStore,
  RESERVED_STREAM_METADATA_KEYS,
  SqliteEventStore,
} from '@strata/event-store';
import { ChainChecker } from '../hash-chain/verify-chain';
import type { HashedEventFields } from '../hash-chain/event-seal';
import type { AnchorIndex, AnchorReference } from './anchor-index';
import { exportedEventSchema, hashedFieldsOf } from './event-lines';
import { LineReadError, type NumberedLine } from './bounded-lines';
import type { IntegrityFinding, RefusedAnchors, StreamIntegrity } from './integrity-findings';

/** The optional head an erasure record may carry (written by the erasure path when it knows it). */
type ErasureWithHead = ErasureRecord & { readonly headRevision?: string; readonly headHash?: string };

const RETENTION_KEYS = RESERVED_STREAM_METADATA_KEYS.filter((key) =>
  ['maxAge', 'maxCount', 'truncateBefore'].includes(key),
);

/**
 * Whether an erasure record stands for this anchor: signed before the erasure at or below its
 * head, or (signed at any time) exactly the head the record states. The latter is an anchor of a
 * head noted before the erasure and signed while it ran: it attests what the record says was
 * there, and a stream written again after an erasure cannot hide behind it unless it holds that
 * very hash at that revision.
 */
function answeredByErasure(anchor: AnchorReference['anchor'], erasure: ErasureWithHead | undefined): boolean {
  if (erasure === undefined) return false;
  const revision = BigInt(anchor.revision);
  const head = erasure.headRevision !== undefined ? BigInt(erasure.headRevision) : undefined;
  if (head !== undefined && revision === head && erasure.headHash === anchor.headHash) return true;
  if (Date.parse(anchor.time) > Date.parse(erasure.erasedAt)) return false;
  if (head === undefined) return true;
  if (revision > head) return false;
  return revision !== head || erasure.headHash === undefined || erasure.headHash === anchor.headHash;
}

/** One stream's chain and its anchors, fed events in revision order. */
class StreamCheck {
  readonly checker = new ChainChecker();
  broken: IntegrityFinding | undefined;
  matched = 0;
  answered = 0;
  private mismatch: { anchor: AnchorReference; chainHash: string } | undefined;
  private mismatches = 0;

  constructor(
    readonly streamId: string,
    private readonly anchors: AnchorIndex | undefined,
    readonly erasure: ErasureWithHead | undefined,
  ) {}

  /** Checks one event (nothing more once the chain broke); false once broken. */
  add(event: HashedEventFields): boolean {
    if (this.broken !== undefined) return false;
    const found = this.checker.check(event);
    if (found !== undefined) {
      this.broken = {
        kind: 'chain_broken',
        streamId: this.streamId,
        brokenAt: found,
        verifiedEvents: this.checker.verified,
      };
      return false;
    }
    if (this.anchors?.hasAnchors(this.streamId) === true) {
      const hash = this.checker.headHash!;
      for (const reference of this.anchors.at(this.streamId, event.revision)) {
        if (answeredByErasure(reference.anchor, this.erasure)) this.answered += 1;
        else if (reference.anchor.headHash === hash) this.matched += 1;
        else {
          this.mismatches += 1;
          this.mismatch ??= { anchor: reference, chainHash: hash };
        }
      }
    }
    return true;
  }

  /** Every finding, given what the store records as the stream's last revision (null: nothing). */
  finish(recordedRevision: bigint | null, retentionKeys: readonly string[] = []): StreamIntegrity {
    const findings: IntegrityFinding[] = [];
    if (this.broken !== undefined) findings.push(this.broken);
    const chainRevision = this.checker.headRevision;
    if (
      this.broken === undefined &&
      recordedRevision !== null &&
      (chainRevision === null || recordedRevision > chainRevision)
    ) {
      findings.push({ kind: 'tail_missing', streamId: this.streamId, recordedRevision, chainRevision });
    }
    if (retentionKeys.length > 0) {
      findings.push({ kind: 'retention_metadata', streamId: this.streamId, keys: retentionKeys });
    }
    if (this.mismatch !== undefined) {
      findings.push({
        kind: 'anchor_mismatch',
        streamId: this.streamId,
        ...this.mismatch,
        others: this.mismatches - 1,
      });
    }
    // Past a break nothing is verified: the break is the finding, not the anchors beyond it.
    if (this.broken === undefined && this.anchors?.hasAnchors(this.streamId) === true) {
      let first: AnchorReference | undefined;
      let notReached = 0;
      for (const reference of this.anchors.after(this.streamId, chainRevision)) {
        if (answeredByErasure(reference.anchor, this.erasure)) {
          this.answered += 1;
          continue;
        }
        notReached += 1;
        first ??= reference;
      }
      if (first !== undefined) {
        findings.push({
          kind: 'anchor_not_reached',
          streamId: this.streamId,
          anchor: first,
          chainRevision,
          others: notReached - 1,
        });
      }
    }
    return {
      streamId: this.streamId,
      events: this.checker.verified,
      headRevision: chainRevision,
      headHash: this.checker.headHash,
      anchorsMatched: this.matched,
      anchorsAnsweredByErasure: this.answered,
      erasure: this.erasure,
      findings,
    };
  }
}

function latestErasure(records: readonly ErasureRecord[]): ErasureWithHead | undefined {
  return records[records.length - 1];
}

async function retentionKeysOf(store: EventStore, streamId: string): Promise<string[]> {
  let metadata: Readonly<Record<string, unknown>>;
  try {
    metadata = await store.getStreamMetadata(streamId);
  } catch {
    return [];
  }
  return RETENTION_KEYS.filter((key) => metadata[key] !== undefined && metadata[key] !== null);
}

export interface IntegrityOptions {
  /** Anchors to match (their signatures were checked when the index was built). */
  readonly anchors?: AnchorIndex;
  /**
   * The erasure that stands for each erased stream, from the store's signed log (decision 0018):
   * when given, only these answer for a stream's absence, never an erasure record alone.
   */
  readonly signedErasures?: ReadonlyMap<string, ErasureRecord>;
}

/**
 * Verifies one stream: its erasure record, the store's record of its last revision (read before
 * the chain, so that an append made meanwhile cannot look like a missing tail), retention
 * metadata, the chain, and the anchors of the stream.
 */
export async function verifyStreamIntegrity(
  store: EventStore,
  streamId: string,
  options: IntegrityOptions = {},
): Promise<StreamIntegrity> {
  const erasure =
    options.signedErasures !== undefined
      ? options.signedErasures.get(streamId)
      : latestErasure(await store.listErasures(streamId));
  const recorded = await store.streamRevision(streamId);
  const retentionKeys = await retentionKeysOf(store, streamId);
  const check = new StreamCheck(streamId, options.anchors, erasure);
  for await (const event of store.readStream(streamId, { uncached: true })) if (!check.add(event)) break;
  return check.finish(recorded, retentionKeys);
}

/** Whether a stream verified without a finding (an erased one holds). */
export function streamHolds(result: StreamIntegrity): boolean {
  return result.findings.length === 0;
}

/**
 * Where a whole-store verification is: a stream's first event was read (`stream`), another
 * `progressEvents` events were read (`events`, for long interleaved streams), or every
 * event was read and each stream is being checked against the store's records (`checking`).
 */
export type StoreIntegrityProgress =
  | { readonly kind: 'stream'; readonly streamId: string; readonly streams: number; readonly events: number }
  | { readonly kind: 'events'; readonly streams: number; readonly events: number }
  | { readonly kind: 'checking'; readonly streams: number; readonly events: number };

/** Events read between two `events` progress reports of a whole-store verification. */
export const INTEGRITY_PROGRESS_EVENTS = 100_000;

export interface StoreIntegrity {
  readonly ok: boolean;
  /** Streams verified (those with events, erased ones, and those only anchors or the store's records name). */
  readonly streams: number;
  readonly events: number;
  readonly anchorsMatched: number;
  /** Streams with a finding, in the order found. */
  readonly failed: readonly StreamIntegrity[];
  /** Erased streams that hold (their records). */
  readonly erased: readonly StreamIntegrity[];
  readonly refusedAnchors: RefusedAnchors;
}

/** The SQLite store's own record of every stream's last revision (`streams`), read at once. */
function recordedRevisions(store: EventStore): Map<string, bigint> | undefined {
  if (!(store instanceof SqliteEventStore)) return undefined;
  const rows = store.database
    .prepare<[], { stream_id: string; last_revision: bigint }>(
      'SELECT stream_id, last_revision FROM streams WHERE erased = 0',
    )
    .all();
  return new Map(rows.map((row) => [row.stream_id, row.last_revision]));
}

function inFilter(streamId: string, filter: EventFilter | undefined): boolean {
  const prefixes = filter?.streamPrefixes ?? [];
  return prefixes.length === 0 || prefixes.some((prefix) => streamId.startsWith(prefix));
}

/**
 * Verifies every stream (those the filter's stream prefixes select) in one pass over the log,
 * keeping one small check per stream; then the streams the log no longer shows but the store's
 * records, an erasure record or an anchor name. A stream whose last revision looks past its
 * chain on a store without a table of records is verified again on its own, so that an append
 * made during the pass is not taken for a missing tail.
 */
export async function verifyStoreIntegrity(
  store: EventStore,
  options: IntegrityOptions & {
    readonly filter?: EventFilter;
    /** Told as each stream starts, every `progressEvents` events, and when the checks against the store's records start. */
    readonly onProgress?: (progress: StoreIntegrityProgress) => void;
    /** Events between two `events` reports; `INTEGRITY_PROGRESS_EVENTS` by default. */
    readonly progressEvents?: number;
  } = {},
): Promise<StoreIntegrity> {
  const { anchors, filter, onProgress, progressEvents = INTEGRITY_PROGRESS_EVENTS } = options;
  const erasures = new Map<string, ErasureWithHead>();
  for (const record of options.signedErasures?.values() ?? (await store.listErasures())) {
    if (inFilter(record.streamId, filter)) erasures.set(record.streamId, record);
  }
  const recorded = recordedRevisions(store);
  const checks = new Map<string, StreamCheck>();
  let events = 0;
  let read = 0;
  for await (const event of store.readAll({ uncached: true, ...(filter === undefined ? {} : { filter }) })) {
    let check = checks.get(event.streamId);
    if (check === undefined) {
      check = new StreamCheck(event.streamId, anchors, erasures.get(event.streamId));
      checks.set(event.streamId, check);
      onProgress?.({ kind: 'stream', streamId: event.streamId, streams: checks.size, events });
    }
    if (check.broken === undefined) events += 1;
    check.add(event);
    read += 1;
    if (read % progressEvents === 0) onProgress?.({ kind: 'events', streams: checks.size, events: read });
  }
  onProgress?.({ kind: 'checking', streams: checks.size, events });
  const results: StreamIntegrity[] = [];
  for (const [streamId, check] of checks) {
    const retentionKeys = await retentionKeysOf(store, streamId);
    if (recorded !== undefined) {
      results.push(check.finish(recorded.get(streamId) ?? null, retentionKeys));
      continue;
    }
    const revision = await store.streamRevision(streamId);
    const chainRevision = check.checker.headRevision;
    const suspect = revision !== null && (chainRevision === null || revision > chainRevision);
    results.push(
      suspect ? await verifyStreamIntegrity(store, streamId, options) : check.finish(revision, retentionKeys),
    );
  }
  const unseen = new Set<string>([...erasures.keys(), ...(anchors?.streams() ?? [])]);
  for (const streamId of recorded?.keys() ?? []) if (inFilter(streamId, filter)) unseen.add(streamId);
  for (const streamId of unseen) {
    if (checks.has(streamId) || !inFilter(streamId, filter)) continue;
    results.push(
      recorded !== undefined
        ? new StreamCheck(streamId, anchors, erasures.get(streamId)).finish(recorded.get(streamId) ?? null)
        : await verifyStreamIntegrity(store, streamId, options),
    );
  }
  const failed = results.filter((result) => !streamHolds(result));
  const refusedAnchors = anchors?.refused((streamId) => inFilter(streamId, filter)) ?? {
    named: [],
    total: 0,
  };
  return {
    ok: failed.length === 0 && refusedAnchors.total === 0,
    streams: results.length,
    events,
    anchorsMatched: results.reduce((total, result) => total + result.anchorsMatched, 0),
    failed,
    erased: results.filter((result) => result.erasure !== undefined && streamHolds(result)),
    refusedAnchors,
  };
}

/** A line of an event file that could not be read as an event; the verification stops there. */
export interface UnreadableEventLine {
  readonly line: number;
  readonly reason: string;
}

export interface FileIntegrity {
  readonly ok: boolean;
  /** Every stream of the file, in the order they first appear. */
  readonly streams: readonly StreamIntegrity[];
  readonly events: number;
  readonly unreadable: UnreadableEventLine | undefined;
  readonly refusedAnchors: RefusedAnchors;
}

/**
 * Verifies an exported event file with no store: each stream's chain in the order of its lines,
 * and the anchors of the streams the file holds. A line that is not an exported event ends the
 * verification (it fails, naming the line).
 */
export async function verifyEventLines(
  lines: AsyncIterable<NumberedLine>,
  options: IntegrityOptions = {},
): Promise<FileIntegrity> {
  const checks = new Map<string, StreamCheck>();
  let events = 0;
  let unreadable: UnreadableEventLine | undefined;
  try {
    for await (const { line, text } of lines) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        unreadable = { line, reason: 'it is not JSON' };
        break;
      }
      const parsed = exportedEventSchema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        unreadable = {
          line,
          reason: `not an exported event (${issue?.path.map(String).join('.') || 'line'}: ${issue?.message ?? 'invalid'})`,
        };
        break;
      }
      const event = hashedFieldsOf(parsed.data);
      let check = checks.get(event.streamId);
      if (check === undefined) {
        check = new StreamCheck(event.streamId, options.anchors, undefined);
        checks.set(event.streamId, check);
      }
      events += 1;
      check.add(event);
    }
  } catch (error) {
    if (!(error instanceof LineReadError)) throw error;
    unreadable = { line: error.line, reason: error.reason };
  }
  const streams = [...checks.values()].map((check) => check.finish(null));
  const refusedAnchors = options.anchors?.refused((streamId) => checks.has(streamId)) ?? {
    named: [],
    total: 0,
  };
  return {
    ok: unreadable === undefined && streams.every(streamHolds) && refusedAnchors.total === 0,
    streams,
    events,
    unreadable,
    refusedAnchors,
  };
}
