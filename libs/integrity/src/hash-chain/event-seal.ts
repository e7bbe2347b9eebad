// The integrity seal of one event (DESIGN.md decision 4): audit fields in its metadata and a
// SHA-256 hash chained to the previous event of its stream, so any change to a stored event,
// or a removed or reordered one, breaks the chain at a point an auditor can name.
import { afterLargeStep, type EventToAppend, type RecordedEvent } from '@strata/event-store';
import { webcrypto } from 'node:crypto';
import { canonicalJson, canonicalJsonParts, sha256Hex } from './canonical-json';
import { holdsSharedBytes, sha256OfSharedParts } from './parts-hasher';

/** The `previousHash` of a stream's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The seal's version, in each event's metadata as `sealVersion` (none on the events of version 1,
 * written before it). Version 2 seals the event's time: `recordedAt`, which the store records as
 * the event's `createdAt`, never earlier than the `recordedAt` of the event before it.
 */
export const SEAL_VERSION = 2;

/** Metadata keys the seal writes (they replace caller values of the same name). */
export const INTEGRITY_METADATA_KEYS = [
  'tenant',
  'actor',
  'correlationId',
  'causationId',
  'schemaVersion',
  'sealVersion',
  'recordedAt',
  'clockStepMs',
  'previousHash',
  'hash',
] as const;

export interface IntegrityMetadata {
  readonly tenant: string;
  readonly actor: string;
  readonly correlationId: string;
  readonly causationId: string;
  readonly schemaVersion: number;
  /** 2 from the seal that covers the time on; absent before. */
  readonly sealVersion?: number;
  /** The time the event was sealed and recorded at (version 2). */
  readonly recordedAt?: string;
  /** How far the clock stood behind the stream's previous event when this one was sealed. */
  readonly clockStepMs?: number;
  readonly previousHash: string;
  readonly hash: string;
}

/**
 * Who and what an append is for. The context is authoritative; a field it leaves out comes
 * from the same key of the event's own metadata, else from a default: tenant `'default'`, actor `'unknown'`, correlationId the first
 * event id of the batch, causationId the correlationId, schemaVersion 1.
 */
export interface AuditContext {
  readonly tenant?: string;
  readonly actor?: string;
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly schemaVersion?: number;
}

/**
 * The fields a hash covers: everything stored of the event except `createdAt`, position and the
 * hash itself. From seal version 2 on, `createdAt` is covered through `metadata.recordedAt`,
 * which it must equal.
 */
export interface HashedEventFields {
  readonly streamId: string;
  readonly revision: bigint;
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
}

const HASH_PATTERN = /^[0-9a-f]{64}$/;

export function isHash(value: unknown): value is string {
  return typeof value === 'string' && HASH_PATTERN.test(value);
}

/**
 * SHA-256 over canonical JSON of {streamId, revision (decimal string), id, type, data,
 * metadata without `hash`}. The metadata includes `previousHash`, which chains the events.
 */
export function eventHash(fields: HashedEventFields): string {
  return sha256Hex(canonicalHashInput(fields));
}

/** The value whose canonical JSON `eventHash` hashes. */
function hashedValue(fields: HashedEventFields): unknown {
  const { hash: _hash, ...metadataWithoutHash } = fields.metadata;
  return {
    streamId: fields.streamId,
    revision: fields.revision.toString(),
    id: fields.id,
    type: fields.type,
    data: fields.data,
    metadata: metadataWithoutHash,
  };
}

/** The canonical JSON text `eventHash` hashes. */
function canonicalHashInput(fields: HashedEventFields): string {
  return canonicalJson(hashedValue(fields));
}

/** The event a seal chains onto could not be chained (it carries no valid hash). */
export class UnsealedEventError extends Error {
  override readonly name = 'UnsealedEventError';

  constructor(
    readonly streamId: string,
    readonly eventId: string,
  ) {
    super(`Cannot chain onto event ${eventId} of ${streamId}: it carries no integrity hash`);
  }
}

function stringField(
  context: AuditContext,
  own: Readonly<Record<string, unknown>>,
  key: keyof AuditContext,
): string | undefined {
  const value = context[key] ?? own[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The seal of a batch, one event at a time: yields the fields each hash covers and takes the
 * hash back (which the next event chains onto), so that one walk serves the synchronous seal and
 * the one that hashes large events off the event loop.
 */
function* sealSteps(
  streamId: string,
  events: readonly EventToAppend[],
  lastEvent: RecordedEvent | undefined,
  context: AuditContext,
  now: Date,
): Generator<HashedEventFields, EventToAppend[], string> {
  const { recordedAt, clockStepMs } = sealTimeAfter(lastEvent, now);
  let previousHash = GENESIS_HASH;
  if (lastEvent !== undefined) {
    const lastHash = lastEvent.metadata['hash'];
    if (!isHash(lastHash)) throw new UnsealedEventError(streamId, lastEvent.id);
    previousHash = lastHash;
  }
  let revision = lastEvent === undefined ? -1n : lastEvent.revision;
  const batchCorrelation = events[0]?.id ?? '';
  const sealed: EventToAppend[] = [];
  for (const event of events) {
    revision += 1n;
    const own = event.metadata ?? {};
    const correlationId = stringField(context, own, 'correlationId') ?? batchCorrelation;
    const ownVersion = own['schemaVersion'];
    const metadata: Record<string, unknown> = {
      ...own,
      tenant: stringField(context, own, 'tenant') ?? 'default',
      actor: stringField(context, own, 'actor') ?? 'unknown',
      correlationId,
      causationId: stringField(context, own, 'causationId') ?? correlationId,
      schemaVersion: context.schemaVersion ?? (typeof ownVersion === 'number' ? ownVersion : 1),
      sealVersion: SEAL_VERSION,
      recordedAt,
      previousHash,
    };
    delete metadata['hash'];
    delete metadata['clockStepMs'];
    if (clockStepMs > 0) metadata['clockStepMs'] = clockStepMs;
    const hash: string = yield {
      streamId,
      revision,
      id: event.id,
      type: event.type,
      data: event.data,
      metadata,
    };
    previousHash = hash;
    sealed.push({
      id: event.id,
      type: event.type,
      data: event.data,
      metadata: { ...metadata, hash },
      createdAt: recordedAt,
    });
  }
  return sealed;
}

/** The time an event records: sealed (version 2) or, before, the store's. */
export function sealedTimeOf(event: RecordedEvent): string {
  const sealed = event.metadata['recordedAt'];
  return typeof sealed === 'string' ? sealed : event.createdAt;
}

/**
 * The time a batch sealed at `now` after `lastEvent` records: `now`, or the previous event's
 * time when the clock stands behind it (a step back of the system clock, another engine's clock
 * ahead of this one's), with how far behind it stood.
 */
export function sealTimeAfter(
  lastEvent: RecordedEvent | undefined,
  now: Date,
): { readonly recordedAt: string; readonly clockStepMs: number } {
  const nowMs = now.getTime();
  const floor = lastEvent === undefined ? Number.NaN : Date.parse(sealedTimeOf(lastEvent));
  if (Number.isNaN(floor) || floor <= nowMs) return { recordedAt: now.toISOString(), clockStepMs: 0 };
  return { recordedAt: new Date(floor).toISOString(), clockStepMs: floor - nowMs };
}

/**
 * Seals a batch that will be written right after `lastEvent` (undefined: a new stream), at the
 * time `now` (or the previous event's time, when the clock stands behind it). Pure apart from
 * hashing; the caller must append with the expected revision `lastEvent?.revision ?? 'no_stream'`
 * for the chain to hold, and the events as sealed (their `createdAt` is the sealed time).
 */
export function sealEvents(
  streamId: string,
  events: readonly EventToAppend[],
  lastEvent: RecordedEvent | undefined,
  context: AuditContext = {},
  now: Date = new Date(),
): EventToAppend[] {
  const steps = sealSteps(streamId, events, lastEvent, context, now);
  for (let step = steps.next(); ;) {
    if (step.done) return step.value;
    step = steps.next(eventHash(step.value));
  }
}

/** Canonical texts from this length on are hashed on libuv's thread pool (`sealEventsOffLoop`). */
export const OFF_LOOP_HASH_LENGTH = 256 * 1024;

/**
 * `sealEvents` for the engine's appends: the same seal, but an event whose canonical text is
 * large is hashed by WebCrypto on libuv's thread pool, so megabytes of content are not hashed on
 * the event loop that answers requests (its canonical text is still written here, and the event
 * loop has its turn between writing a large text and encoding it).
 */
export async function sealEventsOffLoop(
  streamId: string,
  events: readonly EventToAppend[],
  lastEvent: RecordedEvent | undefined,
  context: AuditContext = {},
  now: Date = new Date(),
): Promise<EventToAppend[]> {
  const steps = sealSteps(streamId, events, lastEvent, context, now);
  for (let step = steps.next(); ;) {
    if (step.done) return step.value;
    step = steps.next(await hashOffLoop(canonicalJsonParts(hashedValue(step.value))));
  }
}

/**
 * SHA-256 of canonical text given in parts (canonicalJsonParts): a short text on the event loop,
 * a large one on libuv's thread pool; parts whose bytes were known are never walked, and when
 * they are in shared memory the whole is hashed on the hasher thread, uncopied (parts-hasher.ts).
 */
async function hashOffLoop(parts: readonly (string | Uint8Array)[]): Promise<string> {
  if (holdsSharedBytes(parts)) return sha256OfSharedParts(parts);
  const [only] = parts;
  if (parts.length === 1 && typeof only === 'string') {
    if (only.length < OFF_LOOP_HASH_LENGTH) return sha256Hex(only);
    await afterLargeStep(only.length);
  }
  const bytes =
    parts.length === 1 && typeof only === 'string'
      ? Buffer.from(only, 'utf8')
      : Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part)));
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}
