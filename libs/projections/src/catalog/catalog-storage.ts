// The catalog's storage port and its query: sessions of one tenant, optionally matching a
// text in their title or working directory, most recently active first, paged.
import { z } from 'zod';
import type { DocumentStorage } from '../documents/document-projection';
import { decodeCursor, encodeCursor, type Page, type PageRequest } from '../documents/paging';
import type { CatalogSession } from './catalog-session';

export interface CatalogQuery extends PageRequest {
  /** Required: a catalog query never crosses tenants. */
  readonly tenant: string;
  /** Case-insensitive substring of the title or the working directory. */
  readonly text?: string;
}

/** Where catalog documents live. Contract: the queries see what `save` wrote, nothing else. */
export interface CatalogStorage extends DocumentStorage<CatalogSession> {
  /** The session when it belongs to `tenant`; undefined otherwise (another tenant's session is not found). */
  findSession(tenant: string, sessionId: string): Promise<CatalogSession | undefined>;
  /** Sorted by last activity (latest first), then session id. */
  listSessions(query: CatalogQuery): Promise<Page<CatalogSession>>;
  /** Sessions idle since before `idleBefore`, longest idle first, at most `limit`. */
  listIdleSessions(query: IdleSessionsQuery): Promise<readonly CatalogSession[]>;
  /** Removes the session's document (its stream was erased). */
  removeSession(sessionId: string): Promise<void>;
}

/** Sessions of a tenant whose last event was recorded before a time (retention). */
export interface IdleSessionsQuery {
  readonly tenant: string;
  /** ISO time: sessions whose \`lastActivityAt\` is earlier. */
  readonly idleBefore: string;
  readonly limit: number;
}

/** The sort key the cursor carries: last activity and session id of the last item returned. */
export type CatalogCursor = readonly [lastActivityAt: string, sessionId: string];

const catalogCursorSchema = z.tuple([z.string(), z.string()]);

export function catalogCursorOf(session: CatalogSession): string {
  return encodeCursor([session.lastActivityAt, session.sessionId]);
}

export function readCatalogCursor(cursor: string): CatalogCursor {
  return decodeCursor(cursor, catalogCursorSchema);
}

/** The catalog's sort order: latest activity first, then session id ascending. */
export function compareCatalogSessions(left: CatalogSession, right: CatalogSession): number {
  if (left.lastActivityAt !== right.lastActivityAt)
    return left.lastActivityAt > right.lastActivityAt ? -1 : 1;
  if (left.sessionId === right.sessionId) return 0;
  return left.sessionId < right.sessionId ? -1 : 1;
}

/** Whether a session sorts after the cursor's position. */
export function isAfterCatalogCursor(session: CatalogSession, cursor: CatalogCursor): boolean {
  const [lastActivityAt, sessionId] = cursor;
  return (
    session.lastActivityAt < lastActivityAt ||
    (session.lastActivityAt === lastActivityAt && session.sessionId > sessionId)
  );
}

/** The needle of a text search: lower-cased, or undefined when the text is empty. */
export function searchNeedle(text: string | undefined): string | undefined {
  const needle = text?.trim().toLowerCase();
  return needle === undefined || needle === '' ? undefined : needle;
}
