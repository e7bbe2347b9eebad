// Audit documents in a Map: for tests and for stores that keep nothing on disk.
import { finishPage, resolvePage, type Page } from '../documents/paging';
import { settle } from '../storage/settle';
import type { AuditAttempt } from './audit-attempt';
import {
  auditCursorOf,
  matchesAuditQuery,
  readAuditCursor,
  type AuditQuery,
  type AuditStorage,
} from './audit-storage';

export class InMemoryAuditStorage implements AuditStorage {
  private readonly attempts = new Map<string, AuditAttempt>();

  load(documentId: string): Promise<AuditAttempt | undefined> {
    return Promise.resolve(this.attempts.get(documentId));
  }

  save(documents: ReadonlyMap<string, AuditAttempt>): Promise<void> {
    for (const [documentId, attempt] of documents) this.attempts.set(documentId, attempt);
    return Promise.resolve();
  }

  clear(): Promise<void> {
    this.attempts.clear();
    return Promise.resolve();
  }

  removeSession(sessionId: string): Promise<void> {
    for (const [documentId, attempt] of this.attempts) {
      if (attempt.sessionId === sessionId) this.attempts.delete(documentId);
    }
    return Promise.resolve();
  }

  listAttempts(query: AuditQuery): Promise<Page<AuditAttempt>> {
    return settle(() => {
      const page = resolvePage(query);
      const newestFirst = (query.order ?? 'newest_first') === 'newest_first';
      const cursor = query.cursor !== undefined ? readAuditCursor(query.cursor) : undefined;
      const matching = [...this.attempts.values()]
        .filter((attempt) => matchesAuditQuery(attempt, query))
        .sort((left, right) => {
          const ascending = left.startPosition < right.startPosition ? -1 : 1;
          return newestFirst ? -ascending : ascending;
        });
      const following =
        cursor === undefined
          ? matching
          : matching.filter((attempt) =>
              newestFirst ? attempt.startPosition < cursor : attempt.startPosition > cursor,
            );
      const window = following.slice(page.offset, page.offset + page.limit + 1);
      return finishPage(window, matching.length, page.limit, auditCursorOf);
    });
  }
}
