// The audit's storage port and its query: attempts of one tenant, optionally of one session,
// kind or outcome, ordered by when they started (newest first by default), paged.
import { z } from 'zod';
import type { DocumentStorage } from '../documents/document-projection';
import { decodeCursor, encodeCursor, type Page, type PageRequest } from '../documents/paging';
import type { AuditAttempt, AuditAttemptKind, AuditOutcome } from './audit-attempt';

export type AuditOrder = 'newest_first' | 'oldest_first';

export interface AuditQuery extends PageRequest {
  /** Required: an audit query never crosses tenants. */
  readonly tenant: string;
  readonly sessionId?: string;
  readonly kind?: AuditAttemptKind;
  readonly outcome?: AuditOutcome;
  /** By the start event's position; `newest_first` by default. */
  readonly order?: AuditOrder;
}

/** Where audit documents live. Contract: the queries see what `save` wrote, nothing else. */
export interface AuditStorage extends DocumentStorage<AuditAttempt> {
  listAttempts(query: AuditQuery): Promise<Page<AuditAttempt>>;
  removeSession(sessionId: string): Promise<void>;
}

const auditCursorSchema = z.tuple([z.string().regex(/^\d+$/)]);

export function auditCursorOf(attempt: AuditAttempt): string {
  return encodeCursor([attempt.startPosition.toString()]);
}

/** The start position of the last attempt of the previous page. */
export function readAuditCursor(cursor: string): bigint {
  const [startPosition] = decodeCursor(cursor, auditCursorSchema);
  return BigInt(startPosition);
}

export function matchesAuditQuery(attempt: AuditAttempt, query: AuditQuery): boolean {
  return (
    attempt.tenant === query.tenant &&
    (query.sessionId === undefined || attempt.sessionId === query.sessionId) &&
    (query.kind === undefined || attempt.kind === query.kind) &&
    (query.outcome === undefined || attempt.outcome === query.outcome)
  );
}
