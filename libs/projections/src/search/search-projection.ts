// The session search (issue 14.6): the text of every entry indexed by session and tenant, a
// durable projection of the read-model runner like the catalog (checkpointed, rebuilt from the
// log by `strata replay`). Idempotent by position per session; rows wait in memory until
// `flush` writes them in one transaction.
import { sessionEventTypes, type SessionEventType } from '@strata/session';
import type { Projection } from '../runner/projection';
import type { ProjectedEvent } from '../runner/projected-event';
import type { SearchResult, SearchRow, SearchStorage } from './search-storage';
import { entrySearchText, type SearchTerms } from './search-text';

export const SEARCH_PROJECTION_NAME = 'search';
/** The most matching entries one search looks at (newest first). */
export const MAX_SEARCH_ENTRIES = 5_000;
/** The most sessions one search finds. */
export const MAX_SEARCH_SESSIONS = 500;

export class SearchProjection implements Projection {
  readonly name = SEARCH_PROJECTION_NAME;
  readonly durability = 'durable' as const;
  /** Every type, as the catalog: the runner counts a projection caught up by the events it is given. */
  readonly eventTypes: readonly SessionEventType[] = sessionEventTypes;
  private unsaved: SearchRow[] = [];
  private positions = new Map<string, bigint>();
  /** What a flush under way is writing (still counts for idempotence). */
  private flushing = new Map<string, bigint>();
  /** The storage write of the flush under way. */
  private saving: Promise<void> | undefined;

  constructor(private readonly storage: SearchStorage) {}

  async apply(projected: ProjectedEvent): Promise<void> {
    const { event, sessionId } = projected;
    if (event.type !== 'EntryAppended') return;
    const held =
      this.positions.get(sessionId) ??
      this.flushing.get(sessionId) ??
      (await this.storage.indexedPosition(sessionId));
    if (held !== undefined && held >= projected.position) return;
    const text = entrySearchText(event.data.entry);
    if (text !== '') {
      this.unsaved.push({
        sessionId,
        tenant: projected.tenant,
        entryId: event.data.entry.id,
        position: projected.position,
        text,
      });
    }
    this.positions.set(sessionId, projected.position);
  }

  forget(sessionId: string): void {
    this.unsaved = this.unsaved.filter((row) => row.sessionId !== sessionId);
    this.positions.delete(sessionId);
  }

  /** The session was erased: its rows go, the unsaved and the stored ones. */
  async erase(sessionId: string): Promise<void> {
    // a flush under way may still write the session's rows: let it end first
    await this.saving?.catch(() => undefined);
    this.forget(sessionId);
    await this.storage.forgetSession(sessionId);
  }

  async flush(): Promise<void> {
    if (this.positions.size === 0) return;
    const rows = this.unsaved;
    const positions = this.positions;
    this.unsaved = [];
    this.positions = new Map();
    this.flushing = positions;
    try {
      this.saving = this.storage.save(rows, positions);
      await this.saving;
    } catch (error) {
      this.unsaved = [...rows, ...this.unsaved];
      for (const [sessionId, position] of positions)
        if (!this.positions.has(sessionId)) this.positions.set(sessionId, position);
      throw error;
    } finally {
      this.flushing = new Map();
      this.saving = undefined;
    }
  }

  async reset(): Promise<void> {
    this.unsaved = [];
    this.positions = new Map();
    await this.storage.clear();
  }

  /** The tenant's sessions whose entries hold every term (bounded: see MAX_SEARCH_ENTRIES). */
  search(tenant: string, terms: SearchTerms): Promise<SearchResult> {
    return this.storage.search({
      tenant,
      terms,
      maxEntries: MAX_SEARCH_ENTRIES,
      maxSessions: MAX_SEARCH_SESSIONS,
    });
  }

  excerpt(rowId: bigint, terms: SearchTerms): Promise<string> {
    return this.storage.excerpt(rowId, terms);
  }

  /** Removes everything indexed of one session (erasure). */
  async forgetSession(sessionId: string): Promise<void> {
    this.forget(sessionId);
    await this.storage.forgetSession(sessionId);
  }
}
