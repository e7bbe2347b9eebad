// A snapshot of one session as the context projection holds it (issue 22 item 4): what a
// SessionView folded from the stream up to one event — header, tenant, leaf, the entries in
// stream order, pruned outputs, each entry's token count — as one JSON text the projection's
// storage keeps in a row. A hydration that finds one parses it, checks that the stream still
// holds the event it was taken at (same revision, id and position) and applies only the events
// after it, instead of reading and validating every event of the session again.
// Why the entries are not validated again with zod: they were validated (schema of their event)
// when the view folded them, the text is written by this projection alone, and the snapshot is
// tied to the stream by its last event. What is checked here is the snapshot's own shape: the
// format number, the session and counter it was taken for, scalars, and that every entry is an
// object with an id, a type and a parent, so that a row cut short or garbled, or of another
// version, is refused (and the session hydrated from its events) rather than folded.
// The header and each entry are frozen, not everything inside them as the store freezes an
// event's data: a deep freeze cost as much as the parse (13–30 ms for 3,000 entries in a new
// process). Nothing of the read side writes to an entry; a view hydrated from events, which
// every other test reads, would throw if anything did.
// `SESSION_SNAPSHOT_FORMAT` is bumped whenever SessionView folds differently or the text
// changes: a snapshot of any other format is ignored, never read.
import type { PrunedResult, SessionEntry, SessionHeader } from '@strata/session';
import { WorkSlices } from './work-slices';

/** Bumped whenever the text or the fold behind it changes; other formats are ignored. */
export const SESSION_SNAPSHOT_FORMAT = 1;
/** Sessions with fewer entries are not snapshotted: their events are read quickly enough. */
export const MIN_SNAPSHOT_ENTRIES = 200;
/** Sessions heavier than this (`entryWeight`, up to 2 kB of text a unit) are never snapshotted. */
export const MAX_SNAPSHOT_WEIGHT = 10_000;
/** A snapshot text longer than this (UTF-16 characters, 16 Mi) is not stored. */
export const MAX_SNAPSHOT_CHARACTERS = 16 * 1024 * 1024;

/** The state of a SessionView at one event of its stream. */
export interface SessionSnapshotState {
  readonly sessionId: string;
  /** The key of the counter its token counts were made with (`storedCountsKey`). */
  readonly counterKey: string;
  readonly tenant: string;
  readonly header: SessionHeader;
  readonly leafId: string | null;
  /** The last event folded: stream revision, global position, event id. */
  readonly revision: bigint;
  readonly position: bigint;
  readonly lastEventId: string;
  /** The entries in the order the stream appended them (first of each id only). */
  readonly entries: readonly SessionEntry[];
  /** What the entries weigh in the projection's bound (`entryWeight`, summed). */
  readonly weight: number;
  /** The token count of each entry (same index), null when not counted yet. */
  readonly counts: readonly (number | null)[];
  readonly prunedResults: readonly (readonly [string, PrunedResult])[];
  /** Entries not counted yet with the hash of their event, to store their counts once made. */
  readonly uncounted: readonly (readonly [string, string])[];
}

/** A snapshot as its storage keeps it. */
export interface SessionSnapshotRow {
  readonly sessionId: string;
  readonly format: number;
  readonly position: bigint;
  readonly body: string;
}

/**
 * The JSON text of a snapshot, its entries last. The entries are encoded one by one in slices
 * of `WORK_SLICE_MS`, giving the event loop a turn between slices: a session of megabytes is
 * never encoded in one block. The state must not change meanwhile (`SessionView.snapshotState`
 * gives a copy; entries themselves never change).
 */
export async function encodeSessionSnapshot(state: SessionSnapshotState): Promise<string> {
  const { entries, ...rest } = state;
  const head = JSON.stringify({
    format: SESSION_SNAPSHOT_FORMAT,
    ...rest,
    revision: state.revision.toString(),
    position: state.position.toString(),
  });
  const slices = new WorkSlices();
  const encoded: string[] = [];
  for (const entry of entries) {
    encoded.push(JSON.stringify(entry));
    if (slices.due()) await slices.yield();
  }
  return `${head.slice(0, -1)},"entries":[${encoded.join(',')}]}`;
}

/** What a stored snapshot was read as: its state, or why it is not used. */
export type DecodedSnapshot =
  | { readonly kind: 'usable'; readonly state: SessionSnapshotState }
  | { readonly kind: 'ignored'; readonly reason: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isDecimal = (value: unknown): value is string =>
  typeof value === 'string' && /^(0|[1-9]\d*)$/.test(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

function isEntryShape(value: unknown): value is SessionEntry {
  if (!isRecord(value)) return false;
  const { id, type, parentId } = value;
  return isText(id) && isText(type) && (parentId === null || typeof parentId === 'string');
}

function isPruned(value: unknown): value is readonly [string, PrunedResult] {
  if (!Array.isArray(value) || value.length !== 2 || !isText(value[0]) || !isRecord(value[1])) return false;
  const { prunedAt, tokens } = value[1];
  return typeof prunedAt === 'number' && Number.isFinite(prunedAt) && isCount(tokens);
}

const isHashPair = (value: unknown): value is readonly [string, string] =>
  Array.isArray(value) && value.length === 2 && isText(value[0]) && isText(value[1]);

/** Why the parsed body is not a snapshot of `sessionId` under `counterKey`, or undefined. */
function shapeProblem(
  body: Record<string, unknown>,
  sessionId: string,
  counterKey: string,
): string | undefined {
  if (body['format'] !== SESSION_SNAPSHOT_FORMAT) return `format ${String(body['format'])}`;
  if (body['sessionId'] !== sessionId) return 'taken of another session';
  if (body['counterKey'] !== counterKey) return `counted with ${String(body['counterKey'])}`;
  const { tenant, header, leafId, revision, position, lastEventId, entries, counts, weight } = body;
  if (!isText(tenant) || !isRecord(header) || !isText(lastEventId)) return 'no tenant, header or last event';
  if (!isDecimal(revision) || !isDecimal(position)) return 'no revision or position';
  if (!Array.isArray(entries) || !Array.isArray(counts) || counts.length !== entries.length)
    return 'entries and counts do not match';
  if (!isCount(weight) || weight < entries.length) return 'no weight';
  const ids = new Set<string>();
  for (const entry of entries) {
    if (!isEntryShape(entry) || ids.has(entry.id)) return 'an entry without an id, type or parent';
    ids.add(entry.id);
  }
  if (!counts.every((count) => count === null || isCount(count))) return 'a count that is not a count';
  if (leafId !== null && !(typeof leafId === 'string' && ids.has(leafId))) return 'a leaf that is no entry';
  const { prunedResults, uncounted } = body;
  if (!Array.isArray(prunedResults) || !prunedResults.every(isPruned)) return 'pruned results unreadable';
  if (!Array.isArray(uncounted) || !uncounted.every(isHashPair)) return 'uncounted entries unreadable';
  return undefined;
}

/**
 * Reads a stored snapshot of `sessionId` for a counter of `counterKey`. Anything that is not
 * exactly such a snapshot of this format is `ignored` with the reason; nothing throws. The
 * header and the entries are frozen (not what is inside them).
 */
export function decodeSessionSnapshot(
  row: { readonly format: number; readonly body: string },
  sessionId: string,
  counterKey: string,
): DecodedSnapshot {
  if (row.format !== SESSION_SNAPSHOT_FORMAT) return { kind: 'ignored', reason: `format ${row.format}` };
  let body: unknown;
  try {
    body = JSON.parse(row.body);
  } catch (error) {
    return {
      kind: 'ignored',
      reason: `not JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  if (!isRecord(body)) return { kind: 'ignored', reason: 'not an object' };
  const problem = shapeProblem(body, sessionId, counterKey);
  if (problem !== undefined) return { kind: 'ignored', reason: problem };
  Object.freeze(body['header']);
  for (const entry of body['entries'] as readonly object[]) Object.freeze(entry);
  const state = body as unknown as SessionSnapshotState & { revision: string; position: string };
  return {
    kind: 'usable',
    state: { ...state, revision: BigInt(state.revision), position: BigInt(state.position) },
  };
}
