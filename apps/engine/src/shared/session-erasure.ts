// Audited erasure of one session (issue 14): the session's tenant is checked, its stream is
// erased through the store's `eraseStream` (SQLite rows deleted, an EventStoreDB tombstone) and
// the erasure record is returned. Read models in every engine on the store forget the session
// when they read the record from the store's erasure log. Used by `DELETE /sessions/{id}`,
// retention and `strata erase`, so all three erase alike.
import { StreamErasedError, type ErasureRecord, type EventStore } from '@strata/event-store';
import { eraseSigned, type ErasureSigner } from '@strata/integrity';
import { SessionNotFoundError } from '@strata/session-files';
import { sessionStreamName } from '@strata/session';
import { tenantOfMetadata } from './command-context';

/** The longest reason an erasure records (characters). */
export const MAX_ERASURE_REASON_LENGTH = 1_000;

export interface SessionErasureRequest {
  readonly actor: string;
  readonly reason: string;
  /** The tenant the session must belong to; any tenant when undefined (the CLI). */
  readonly tenant?: string;
}

/** The session was erased: its record says who, when and why. */
export class SessionErasedError extends Error {
  override readonly name = 'SessionErasedError';

  constructor(
    readonly sessionId: string,
    readonly record: ErasureRecord,
  ) {
    super(`session ${sessionId} was erased at ${record.erasedAt} by ${record.actor}: ${record.reason}`);
  }
}

/** A reason an erasure may record: not blank, at most `MAX_ERASURE_REASON_LENGTH` characters. */
export function erasureReasonProblem(reason: string | undefined): string | undefined {
  if (reason === undefined || reason.trim() === '') return 'a reason is required';
  if (reason.length > MAX_ERASURE_REASON_LENGTH) {
    return `a reason has at most ${MAX_ERASURE_REASON_LENGTH} characters`;
  }
  return undefined;
}

/** The latest erasure record of the session (of `tenant`'s, when given); undefined when never erased. */
export async function sessionErasure(
  store: EventStore,
  sessionId: string,
  tenant?: string,
): Promise<ErasureRecord | undefined> {
  const records = await store.listErasures(sessionStreamName(sessionId));
  const visible = records.filter((record) => tenant === undefined || erasureTenant(record) === tenant);
  return visible[visible.length - 1];
}

/** The tenant of an erasure record (`default` for a record that names none). */
export function erasureTenant(record: ErasureRecord): string {
  return tenantOfMetadata(record.tenant === undefined ? {} : { tenant: record.tenant });
}

/** The session's tenant, from its first event; undefined for an empty (or erased) stream. */
async function tenantOfSessionStream(store: EventStore, sessionId: string): Promise<string | undefined> {
  for await (const first of store.readStream(sessionStreamName(sessionId), { maxCount: 1 })) {
    return tenantOfMetadata(first.metadata);
  }
  return undefined;
}

/** Where the engine's erasures are signed (decision 0018), when it signs: the HTTP engine's signed log and key. */
export const ERASURE_SIGNER = Symbol('ERASURE_SIGNER');

/**
 * Erases the session, signing the erasure into the store's log first when a signer is given.
 * Throws `SessionErasedError` when it was erased already (with that record),
 * `SessionNotFoundError` when it does not exist or belongs to another tenant than `request.tenant`.
 */
export async function eraseSession(
  store: EventStore,
  sessionId: string,
  request: SessionErasureRequest,
  signer?: ErasureSigner,
): Promise<ErasureRecord> {
  const owner = await tenantOfSessionStream(store, sessionId);
  if (owner === undefined || (request.tenant !== undefined && owner !== request.tenant)) {
    const erased = await sessionErasure(store, sessionId, request.tenant);
    if (erased !== undefined && owner === undefined) throw new SessionErasedError(sessionId, erased);
    throw new SessionNotFoundError(sessionId);
  }
  try {
    const erasure = { actor: request.actor, reason: request.reason, tenant: owner };
    const streamId = sessionStreamName(sessionId);
    return signer !== undefined
      ? await eraseSigned(store, streamId, erasure, signer)
      : await store.eraseStream(streamId, erasure);
  } catch (error) {
    if (!(error instanceof StreamErasedError)) throw error;
    // Another engine erased it meanwhile: its record answers.
    const erased = await sessionErasure(store, sessionId, owner);
    if (erased === undefined) throw error;
    throw new SessionErasedError(sessionId, erased);
  }
}

/**
 * Refuses to write an erased session again (import, start) unless asked for explicitly:
 * throws `SessionErasedError` when the session of `tenant` (any tenant's when undefined) was
 * erased and the stream is still empty.
 */
export async function requireNotErased(
  store: EventStore,
  sessionId: string,
  tenant: string | undefined,
): Promise<void> {
  if ((await store.streamRevision(sessionStreamName(sessionId))) !== null) return;
  const erased = await sessionErasure(store, sessionId, tenant);
  if (erased !== undefined) throw new SessionErasedError(sessionId, erased);
}
