// The session search (issue 14.6): the text of every entry indexed by session and tenant, a
// durable projection of the read-model runner like the catalog (checkpointed, rebuilt from the
// log by `strata replay`). Idempotent by position per session; rows wait in memory until
// `flush` writes them in one transaction, or until they make a batch (SAVE_BATCH_ROWS rows or
// SAVE_BATCH_CHARACTERS of text), which is written behind while the next one fills: a replay
// writes the index in large transactions and holds at most two batches, whatever the log's size.
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
/** Rows held before they are written without waiting for a flush. */
export const SAVE_BATCH_ROWS = 4_000;
/** Characters of text held before they are written without waiting for a flush. */
export const SAVE_BATCH_CHARACTERS = 8 * 1024 * 1024;

/** How large a batch of rows grows before it is written without waiting for a flush. */
export interface SearchProjectionOptions {
  /** `SAVE_BATCH_ROWS` by default. */
  readonly batchRows?: number;
  /** `SAVE_BATCH_CHARACTERS` by default. */
  readonly batchCharacters?: number;
}

export class SearchProjection implements Projection {
  readonly name = SEARCH_PROJECTION_NAME;
  readonly durability = 'durable' as const;
  /** Every type, as the catalog: the runner counts a projection caught up by the events it is given. */
  readonly eventTypes: readonly SessionEventType[] = sessionEventTypes;
  private unsaved: SearchRow[] = [];
  private unsavedCharacters = 0;
  private positions = new Map<string, bigint>();
  /** What the save under way is writing (still counts for idempotence). */
  private flushing = new Map<string, bigint>();
  /** The storage write under way (one at a time). */
  private saving: Promise<void> | undefined;

  private readonly batchRows: number;
  private readonly batchCharacters: number;

  constructor(
    private readonly storage: SearchStorage,
    options: SearchProjectionOptions = {},
  ) {
    this.batchRows = options.batchRows ?? SAVE_BATCH_ROWS;
    this.batchCharacters = options.batchCharacters ?? SAVE_BATCH_CHARACTERS;
  }

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
      this.unsavedCharacters += text.length;
    }
    this.positions.set(sessionId, projected.position);
    if (this.unsaved.length >= this.batchRows || this.unsavedCharacters >= this.batchCharacters) {
      // Waits only for the save before (memory stays bounded); this batch is written behind, and
      // a failed write leaves its rows for the next flush.
      await this.saveSettled();
      if (this.saving === undefined && this.positions.size > 0) this.save().catch(() => undefined);
    }
  }

  forget(sessionId: string): void {
    this.unsaved = this.unsaved.filter((row) => row.sessionId !== sessionId);
    this.unsavedCharacters = this.unsaved.reduce((total, row) => total + row.text.length, 0);
    this.positions.delete(sessionId);
  }

  /** The session was erased: its rows go, the unsaved and the stored ones. */
  async erase(sessionId: string): Promise<void> {
    // A save under way may still write the session's rows (or put them back when it fails): let it
    // end first, and forget in the same turn as seeing no save under way.
    while (this.saving !== undefined) await this.saving.catch(() => undefined);
    this.forget(sessionId);
    await this.storage.forgetSession(sessionId);
  }

  /** Writes everything applied: after the save under way, what is left (a failed save's rows included). */
  async flush(): Promise<void> {
    for (;;) {
      await this.saveSettled();
      // another caller may have started a save meanwhile: it takes what is unsaved, so wait for it
      if (this.saving !== undefined) continue;
      if (this.positions.size > 0) await this.save();
      return;
    }
  }

  /** Resolves once no save is under way (a failed one has put its rows back for the next). */
  private async saveSettled(): Promise<void> {
    while (this.saving !== undefined) await this.saving.catch(() => undefined);
  }

  /** Starts writing what is unsaved; call only when no save is under way. */
  private save(): Promise<void> {
    const rows = this.unsaved;
    const characters = this.unsavedCharacters;
    const positions = this.positions;
    this.unsaved = [];
    this.unsavedCharacters = 0;
    this.positions = new Map();
    this.flushing = positions;
    const saving = this.storage
      .save(rows, positions)
      .catch((error: unknown) => {
        this.unsaved = [...rows, ...this.unsaved];
        this.unsavedCharacters += characters;
        for (const [sessionId, position] of positions)
          if (!this.positions.has(sessionId)) this.positions.set(sessionId, position);
        throw error;
      })
      .finally(() => {
        this.flushing = new Map();
        this.saving = undefined;
      });
    this.saving = saving;
    return saving;
  }

  async reset(): Promise<void> {
    while (this.saving !== undefined) await this.saving.catch(() => undefined);
    this.unsaved = [];
    this.unsavedCharacters = 0;
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
