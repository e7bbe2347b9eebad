// The entries of a store's signed log (decision 0018): anchors (a stream's head), checkpoints (what
// the whole store held when they were written) and erasures (who removed which head, when and
// why). Each entry names its position in the log and the hash of the entry before it, so the
// entries form one hash chain; its own hash covers every field but the signature, and the
// signature (Ed25519) covers that hash. Removing or editing an entry anywhere but at the log's end
// breaks the chain; an entry cannot be made without the signing key.
import { createHash, sign, verify } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../hash-chain/canonical-json';
import type { AnchorPublicKey, AnchorSigningKey } from '../anchors/anchor';

/** Prefixed to the text an entry's hash covers, so that no other Strata hash can pass for one. */
export const LOG_ENTRY_CONTEXT = 'strata-log/1\n';
/** Prefixed to the entry hash that a signature covers. */
export const LOG_SIGNATURE_CONTEXT = 'strata-log-signature/1\n';
/** The `previousHash` of a log's first chained entry. */
export const LOG_GENESIS_HASH = '0'.repeat(64);
/** The most heads one checkpoint entry lists; a checkpoint with more is written in parts. */
export const MAX_CHECKPOINT_HEADS = 1_000;
/** The most erased streams one checkpoint entry lists. */
export const MAX_CHECKPOINT_ERASED = 1_000;
/** The longest stream id an entry may name (session ids are at most 512 UTF-16 code units). */
export const MAX_LOG_STREAM_LENGTH = 600;
/**
 * The longest stream id a checkpoint or an erasure entry names: the store bounds no stream id, so
 * a checkpoint takes any stream a writer could make up to this; a longer one is left out of
 * checkpoints (and said so in decision 0018).
 */
export const MAX_CHECKPOINT_STREAM_LENGTH = 16 * 1024;
/** The most characters of stream ids one checkpoint part holds, so that its line stays under `MAX_LOG_LINE_BYTES`. */
export const MAX_CHECKPOINT_PART_STREAM_CHARACTERS = 256 * 1024;
/** The longest line of an exported log (a checkpoint of `MAX_CHECKPOINT_HEADS` long stream ids). */
export const MAX_LOG_LINE_BYTES = 1024 * 1024;

/** A stream's last revision and that event's chained hash (null for an event without a seal). */
export interface StreamHead {
  readonly stream: string;
  readonly revision: string;
  readonly headHash: string | null;
}

export interface AnchorEntryBody {
  readonly kind: 'anchor';
  readonly stream: string;
  readonly revision: string;
  readonly headHash: string;
}

/**
 * What the store held at `storePosition` (its global log position; -1 for an empty store): the
 * heads of the streams written since the previous checkpoint (`fromStorePosition`), the streams
 * erased since, and (where the store can count them cheaply) how many live streams and events it
 * held. A checkpoint with more heads than one entry takes is written as `parts` entries in a row.
 */
export interface CheckpointEntryBody {
  readonly kind: 'checkpoint';
  readonly fromStorePosition: string;
  readonly storePosition: string;
  readonly streams: number | null;
  readonly events: string | null;
  readonly heads: readonly StreamHead[];
  readonly erased: readonly string[];
  readonly part: number;
  readonly parts: number;
}

/** An erasure, signed before it is carried out: who, when, why, and the head it removes. */
export interface ErasureEntryBody {
  readonly kind: 'erasure';
  readonly streamId: string;
  readonly actor: string;
  readonly reason: string;
  readonly tenant?: string;
  readonly erasedAt: string;
  readonly eventCount: number;
  readonly headRevision?: string;
  readonly headHash?: string;
  /**
   * Set on an erasure found in the store when its log began (an erasure made before the log was
   * chained, signed as it was found), not signed as it was carried out.
   */
  readonly adopted?: true;
}

export type LogEntryBody = AnchorEntryBody | CheckpointEntryBody | ErasureEntryBody;

/** Where an entry sits and who signed it when. */
export interface LogEntryPlace {
  /** The entry's position in the log (a decimal string; one more than the entry before). */
  readonly position: string;
  readonly previousHash: string;
  readonly time: string;
  readonly keyId: string;
}

export type UnsignedLogEntry = LogEntryBody & LogEntryPlace;

/** A signed entry: `hash` is the SHA-256 of its canonical text, `signature` signs that hash. */
export type LogEntry = UnsignedLogEntry & { readonly hash: string; readonly signature: string };
export type AnchorLogEntry = AnchorEntryBody &
  LogEntryPlace & { readonly hash: string; readonly signature: string };
export type CheckpointLogEntry = CheckpointEntryBody &
  LogEntryPlace & { readonly hash: string; readonly signature: string };
export type ErasureLogEntry = ErasureEntryBody &
  LogEntryPlace & { readonly hash: string; readonly signature: string };

/** The hash of an entry: SHA-256 over the context and the canonical JSON of every field but hash and signature. */
export function logEntryHash(entry: UnsignedLogEntry): string {
  const { hash: _hash, signature: _signature, ...fields } = entry as Partial<LogEntry> & UnsignedLogEntry;
  return createHash('sha256')
    .update(LOG_ENTRY_CONTEXT + canonicalJson(fields), 'utf8')
    .digest('hex');
}

function signedText(hash: string): Buffer {
  return Buffer.from(LOG_SIGNATURE_CONTEXT + hash, 'utf8');
}

/** Signs an entry at its place. */
export function signLogEntry(
  body: LogEntryBody,
  place: Omit<LogEntryPlace, 'keyId'>,
  key: AnchorSigningKey,
): LogEntry {
  const unsigned = { ...body, ...place, keyId: key.keyId } as UnsignedLogEntry;
  const hash = logEntryHash(unsigned);
  return { ...unsigned, hash, signature: sign(null, signedText(hash), key.privateKey).toString('base64') };
}

export type LogEntryCheck = 'valid' | 'unknown_key' | 'bad_signature' | 'bad_hash';

/** Whether the entry's hash is its content's and one of `keys` signed it. */
export function checkLogEntry(entry: LogEntry, keys: ReadonlyMap<string, AnchorPublicKey>): LogEntryCheck {
  if (logEntryHash(entry) !== entry.hash) return 'bad_hash';
  const key = keys.get(entry.keyId);
  if (key === undefined) return 'unknown_key';
  const signature = Buffer.from(entry.signature, 'base64');
  if (signature.length !== 64) return 'bad_signature';
  return verify(null, signedText(entry.hash), key.publicKey, signature) ? 'valid' : 'bad_signature';
}

const HASH = z.string().regex(/^[0-9a-f]{64}$/, '64 lower-case hex digits');
const DECIMAL = z.string().regex(/^(0|[1-9][0-9]{0,19})$/, 'a decimal number');
const POSITION = z.string().regex(/^(-1|0|[1-9][0-9]{0,19})$/, 'a decimal position');
const STREAM = z.string().min(1).max(MAX_LOG_STREAM_LENGTH);
const ANY_STREAM = z.string().min(1).max(MAX_CHECKPOINT_STREAM_LENGTH);

const placeShape = {
  position: DECIMAL,
  previousHash: HASH,
  time: z.iso.datetime({ offset: true }),
  keyId: z.string().regex(/^[0-9a-f]{16}$/, '16 lower-case hex digits'),
  hash: HASH,
  signature: z.string().min(1).max(200),
};

/** The shape of a log entry read from outside (a store's log, an exported file). */
export const logEntrySchema = z.discriminatedUnion('kind', [
  z
    .object({ kind: z.literal('anchor'), stream: STREAM, revision: DECIMAL, headHash: HASH, ...placeShape })
    .strict(),
  z
    .object({
      kind: z.literal('checkpoint'),
      fromStorePosition: POSITION,
      storePosition: POSITION,
      streams: z.number().int().nonnegative().nullable(),
      events: DECIMAL.nullable(),
      heads: z
        .array(z.object({ stream: ANY_STREAM, revision: DECIMAL, headHash: HASH.nullable() }).strict())
        .max(MAX_CHECKPOINT_HEADS),
      erased: z.array(ANY_STREAM).max(MAX_CHECKPOINT_ERASED),
      part: z.number().int().min(1),
      parts: z.number().int().min(1),
      ...placeShape,
    })
    .strict(),
  z
    .object({
      kind: z.literal('erasure'),
      streamId: ANY_STREAM,
      actor: z.string().max(1_000),
      reason: z.string().max(2_000),
      tenant: z.string().max(1_000).optional(),
      erasedAt: z.iso.datetime({ offset: true }),
      eventCount: z.number().int().nonnegative(),
      headRevision: DECIMAL.optional(),
      headHash: HASH.optional(),
      adopted: z.literal(true).optional(),
      ...placeShape,
    })
    .strict(),
]);

/** The entry as one JSON line, with its line break. */
export function logEntryLine(entry: LogEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/** The fields of an erasure record that its signed entry must state alike. */
export const SIGNED_ERASURE_FIELDS = [
  'streamId',
  'actor',
  'reason',
  'tenant',
  'erasedAt',
  'eventCount',
  'headRevision',
  'headHash',
] as const;

/** The entry a stored text holds at `position`, or why it holds none. */
export function parseLogEntryText(position: bigint, text: string): LogEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'its entry is not JSON';
  }
  const parsed = logEntrySchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `not a log entry (${issue?.path.map(String).join('.') || 'entry'}: ${issue?.message ?? 'invalid'})`;
  }
  if (parsed.data.position !== position.toString()) return `its entry says position ${parsed.data.position}`;
  return parsed.data;
}
