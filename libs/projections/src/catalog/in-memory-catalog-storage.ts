// Catalog documents in a Map: for tests and for stores that keep nothing on disk.
import { finishPage, resolvePage, type Page } from '../documents/paging';
import { settle } from '../storage/settle';
import { catalogSearchText, type CatalogSession } from './catalog-session';
import {
  catalogCursorOf,
  compareCatalogSessions,
  isAfterCatalogCursor,
  readCatalogCursor,
  searchNeedle,
  type CatalogQuery,
  type CatalogStorage,
  type IdleSessionsQuery,
} from './catalog-storage';

export class InMemoryCatalogStorage implements CatalogStorage {
  private readonly sessions = new Map<string, CatalogSession>();

  load(sessionId: string): Promise<CatalogSession | undefined> {
    return Promise.resolve(this.sessions.get(sessionId));
  }

  save(documents: ReadonlyMap<string, CatalogSession>): Promise<void> {
    for (const [sessionId, session] of documents) this.sessions.set(sessionId, session);
    return Promise.resolve();
  }

  clear(): Promise<void> {
    this.sessions.clear();
    return Promise.resolve();
  }

  removeSession(sessionId: string): Promise<void> {
    this.sessions.delete(sessionId);
    return Promise.resolve();
  }

  listIdleSessions(query: IdleSessionsQuery): Promise<readonly CatalogSession[]> {
    return settle(() =>
      [...this.sessions.values()]
        .filter((session) => session.tenant === query.tenant && session.lastActivityAt < query.idleBefore)
        .sort((left, right) => -compareCatalogSessions(left, right))
        .slice(0, Math.max(0, query.limit)),
    );
  }

  findSession(tenant: string, sessionId: string): Promise<CatalogSession | undefined> {
    const session = this.sessions.get(sessionId);
    return Promise.resolve(session?.tenant === tenant ? session : undefined);
  }

  listSessions(query: CatalogQuery): Promise<Page<CatalogSession>> {
    return settle(() => {
      const page = resolvePage(query);
      const cursor = query.cursor !== undefined ? readCatalogCursor(query.cursor) : undefined;
      const needle = searchNeedle(query.text);
      const matching = [...this.sessions.values()]
        .filter((session) => session.tenant === query.tenant)
        .filter((session) => needle === undefined || catalogSearchText(session).includes(needle))
        .sort(compareCatalogSessions);
      const following =
        cursor === undefined ? matching : matching.filter((s) => isAfterCatalogCursor(s, cursor));
      const window = following.slice(page.offset, page.offset + page.limit + 1);
      return finishPage(window, matching.length, page.limit, catalogCursorOf);
    });
  }
}
