// The entries of one session by append index, loaded in pages as rows come into view. Entries
// never change once appended, so a full page is kept for good; only the last, partly filled page
// is read again after the session grows.
import { getJson, sessionPath } from './api.js';
import type { SessionEntries, SessionEntry } from '@strata/client/browser';

export const ENTRY_PAGE_SIZE = 200;

export class EntryCache {
  private readonly entries = new Map<number, SessionEntry>();
  private readonly loading = new Map<number, Promise<void>>();
  private readonly completePages = new Set<number>();

  constructor(
    private readonly sessionId: string,
    private readonly onLoaded: () => void,
  ) {}

  get(index: number): SessionEntry | undefined {
    return this.entries.get(index);
  }

  /** Loads the pages holding these append indexes that are not loaded yet. */
  ensure(indexes: Iterable<number>): Promise<void> {
    const pages = new Set<number>();
    for (const index of indexes) {
      const page = Math.floor(index / ENTRY_PAGE_SIZE);
      if (!this.completePages.has(page)) pages.add(page);
    }
    return Promise.all([...pages].map((page) => this.loadPage(page))).then(() => undefined);
  }

  /** The entry at `index`, loading its page when needed. */
  async entry(index: number): Promise<SessionEntry | undefined> {
    await this.ensure([index]);
    return this.entries.get(index);
  }

  private loadPage(page: number): Promise<void> {
    const pending = this.loading.get(page);
    if (pending !== undefined) return pending;
    const loading = getJson<SessionEntries>(sessionPath(this.sessionId, '/entries'), {
      offset: page * ENTRY_PAGE_SIZE,
      limit: ENTRY_PAGE_SIZE,
    })
      .then((result) => {
        result.items.forEach((entry, position) => this.entries.set(result.offset + position, entry));
        if (result.items.length === ENTRY_PAGE_SIZE) this.completePages.add(page);
        this.onLoaded();
      })
      .finally(() => this.loading.delete(page));
    this.loading.set(page, loading);
    return loading;
  }
}
