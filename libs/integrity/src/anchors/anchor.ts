// Signed anchors (issue 14): the head of a session stream — its stream id, the revision of its
// last event and that event's chained hash — at a time, signed with the engine's Ed25519 key.
// An auditor who keeps anchors outside the store can later prove that the stream still holds
// that head: a stream cut short, or rewritten with a new chain, no longer matches. The signature
// covers the canonical JSON of every field but itself, after a fixed context string.
import { createHash, sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../hash-chain/canonical-json';
import { checkLogEntry, MAX_LOG_STREAM_LENGTH, type LogEntry } from '../store-log/log-entry';

/** One anchor as it is logged and exported (one JSON line each). */
export interface Anchor {
  /** The stream, `session-<id>`. */
  readonly stream: string;
  /** The 0-based revision of the stream's last event when it was signed (a decimal string). */
  readonly revision: string;
  /** The `hash` of that event. */
  readonly headHash: string;
  /** When it was signed (ISO 8601, UTC). */
  readonly time: string;
  /** The signing key's id: the first 16 hex digits of the SHA-256 of its public key (SPKI DER). */
  readonly keyId: string;
  /** Ed25519 signature, base64. */
  readonly signature: string;
  /**
   * Where the anchor sits in its store's anchor log (a decimal number that grows with every
   * anchor logged; not signed): export with `after` set to the last one kept to get everything
   * logged since, whatever the clocks said.
   */
  readonly position?: string;
  /** Set on an anchor of the chained log (decision 0018): it is an entry of that log. */
  readonly kind?: 'anchor';
  /** The hash of the log entry before it (chained anchors only; signed). */
  readonly previousHash?: string;
  /** The hash of this entry, which its signature covers (chained anchors only). */
  readonly hash?: string;
}

/** Prefixed to what is signed, so that no other Strata signature can pass for an anchor. */
export const ANCHOR_SIGNATURE_CONTEXT = 'strata-anchor/1\n';

const HASH_PATTERN = /^[0-9a-f]{64}$/;
const KEY_ID_PATTERN = /^[0-9a-f]{16}$/;
const REVISION_PATTERN = /^(0|[1-9][0-9]{0,19})$/;

/** The longest stream id an anchor may name (session ids are at most 512 UTF-16 code units). */
export const MAX_ANCHOR_STREAM_LENGTH = MAX_LOG_STREAM_LENGTH;

/** The shape of an anchor read from outside (a file, a store's log). */
export const anchorSchema = z
  .object({
    stream: z.string().min(1).max(MAX_ANCHOR_STREAM_LENGTH),
    revision: z.string().regex(REVISION_PATTERN, 'a decimal revision'),
    headHash: z.string().regex(HASH_PATTERN, '64 lower-case hex digits'),
    time: z.iso.datetime({ offset: true }),
    keyId: z.string().regex(KEY_ID_PATTERN, '16 lower-case hex digits'),
    signature: z.string().min(1).max(200),
    position: z.string().regex(REVISION_PATTERN, 'a decimal position').optional(),
    kind: z.literal('anchor').optional(),
    previousHash: z.string().regex(HASH_PATTERN, '64 lower-case hex digits').optional(),
    hash: z.string().regex(HASH_PATTERN, '64 lower-case hex digits').optional(),
  })
  .strict();

/** A key pair that signs anchors. */
export interface AnchorSigningKey {
  readonly keyId: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** The public key as SPKI PEM (what `GET /anchors/public-key` serves). */
  readonly publicKeyPem: string;
}

/** A public key that checks anchors. */
export interface AnchorPublicKey {
  readonly keyId: string;
  readonly publicKey: KeyObject;
}

/** The key id of an Ed25519 public key. */
export function anchorKeyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

function signedText(anchor: Omit<Anchor, 'signature'>): Buffer {
  const { stream, revision, headHash, time, keyId } = anchor;
  return Buffer.from(
    ANCHOR_SIGNATURE_CONTEXT + canonicalJson({ headHash, keyId, revision, stream, time }),
    'utf8',
  );
}

/** What an anchor records before it is signed. */
export interface AnchorHead {
  readonly streamId: string;
  readonly revision: bigint;
  readonly headHash: string;
}

/** Signs a stream's head at `time`. */
export function signAnchor(head: AnchorHead, time: Date, key: AnchorSigningKey): Anchor {
  const unsigned = {
    stream: head.streamId,
    revision: head.revision.toString(),
    headHash: head.headHash,
    time: time.toISOString(),
    keyId: key.keyId,
  };
  return { ...unsigned, signature: sign(null, signedText(unsigned), key.privateKey).toString('base64') };
}

export type AnchorSignatureCheck = 'valid' | 'unknown_key' | 'bad_signature';

/** Whether one of `keys` signed exactly this anchor. */
export function checkAnchorSignature(
  anchor: Anchor,
  keys: ReadonlyMap<string, AnchorPublicKey>,
): AnchorSignatureCheck {
  if (anchor.previousHash !== undefined || anchor.hash !== undefined || anchor.kind !== undefined) {
    const entry = chainedAnchorEntry(anchor);
    if (entry === undefined) return 'bad_signature';
    const check = checkLogEntry(entry, keys);
    return check === 'bad_hash' ? 'bad_signature' : check;
  }
  const key = keys.get(anchor.keyId);
  if (key === undefined) return 'unknown_key';
  const signature = Buffer.from(anchor.signature, 'base64');
  if (signature.length !== 64) return 'bad_signature';
  return verify(null, signedText(anchor), key.publicKey, signature) ? 'valid' : 'bad_signature';
}

/** The anchor as a log entry, when it carries everything a chained anchor must. */
function chainedAnchorEntry(anchor: Anchor): LogEntry | undefined {
  const { stream, revision, headHash, time, keyId, signature, position, previousHash, hash } = anchor;
  if (position === undefined || previousHash === undefined || hash === undefined) return undefined;
  return { kind: 'anchor', stream, revision, headHash, position, previousHash, time, keyId, hash, signature };
}

/** The anchor as one JSON line (fields in a fixed order, its log position last when known), with its line break. */
export function anchorLine(anchor: Anchor): string {
  if (anchor.previousHash !== undefined) return `${JSON.stringify(anchor)}\n`;
  const { stream, revision, headHash, time, keyId, signature, position } = anchor;
  const line = {
    stream,
    revision,
    headHash,
    time,
    keyId,
    signature,
    ...(position !== undefined ? { position } : {}),
  };
  return `${JSON.stringify(line)}\n`;
}
