// The catalog projection (issue 5): the sessions list, one document per session, kept in a
// CatalogStorage and queried by tenant.
import { DocumentProjection } from '../documents/document-projection';
import type { Page } from '../documents/paging';
import { catalogProjectionDefinition, type CatalogSession } from './catalog-session';
import type { CatalogQuery, CatalogStorage, IdleSessionsQuery } from './catalog-storage';

export class CatalogProjection extends DocumentProjection<CatalogSession> {
  constructor(private readonly catalog: CatalogStorage) {
    super(catalogProjectionDefinition, catalog);
  }

  /** One session of `tenant`; undefined when unknown or another tenant's. */
  findSession(tenant: string, sessionId: string): Promise<CatalogSession | undefined> {
    return this.catalog.findSession(tenant, sessionId);
  }

  /** Throws `InvalidProjectionQueryError` for a bad limit, offset or cursor. */
  listSessions(query: CatalogQuery): Promise<Page<CatalogSession>> {
    return this.catalog.listSessions(query);
  }

  /** Sessions of a tenant idle since before a time, longest idle first, at most `limit` (retention). */
  listIdleSessions(query: IdleSessionsQuery): Promise<readonly CatalogSession[]> {
    return this.catalog.listIdleSessions(query);
  }
}
