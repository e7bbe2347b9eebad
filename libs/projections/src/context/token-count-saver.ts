// Saves the context projection's new token counts behind its work (token-count-storage.ts): the
// counts made by a read or an event wait in memory and are written in one batch a short while
// later (`SAVE_DELAY_MS`), or at once behind the work when `SAVE_BATCH_ROWS` wait, one write at a
// time, so that live appends do not each cost a write (and a flush) of their own. At most
// `MAX_UNSAVED_ROWS` wait; past that new counts are not kept (they are a cache, counted again
// after a restart). A failed load or save costs counting, never an answer.
import type { StoredTokenCount, TokenCountRow, TokenCountStorage } from './token-count-storage';
import { storedCountsKey } from './token-count-storage';

export const SAVE_DELAY_MS = 1_000;
export const SAVE_BATCH_ROWS = 4_000;
export const MAX_UNSAVED_ROWS = 100_000;

export interface TokenCountSaverStats {
  readonly saved: number;
  readonly unsaved: number;
  readonly dropped: number;
  readonly failures: number;
}

export class TokenCountSaver {
  readonly counterKey: string;
  private unsaved: TokenCountRow[] = [];
  private saving: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private saved = 0;
  private dropped = 0;
  private failures = 0;

  constructor(
    private readonly storage: TokenCountStorage,
    counterName: string,
  ) {
    this.counterKey = storedCountsKey(counterName);
  }

  /** The session's stored counts; none when they cannot be read. */
  async load(sessionId: string): Promise<ReadonlyMap<string, StoredTokenCount> | undefined> {
    try {
      return await this.storage.load(sessionId, this.counterKey);
    } catch {
      this.failures += 1;
      return undefined;
    }
  }

  /** Queues new counts of the session for the next save. */
  collect(sessionId: string, counts: readonly StoredTokenCount[]): void {
    if (counts.length === 0 || this.closed) return;
    for (const count of counts) {
      if (this.unsaved.length >= MAX_UNSAVED_ROWS) {
        this.dropped += 1;
        continue;
      }
      this.unsaved.push({ sessionId, counterKey: this.counterKey, ...count });
    }
    this.schedule();
  }

  /** The session was erased: its waiting counts are dropped and its stored ones deleted. */
  async forget(sessionId: string): Promise<void> {
    this.unsaved = this.unsaved.filter((row) => row.sessionId !== sessionId);
    await this.saving;
    await this.storage.forgetSession(sessionId);
  }

  /** Saves what waits and keeps nothing more. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.saving;
    await this.saveWaiting();
  }

  stats(): TokenCountSaverStats {
    return {
      saved: this.saved,
      unsaved: this.unsaved.length,
      dropped: this.dropped,
      failures: this.failures,
    };
  }

  /** A save at once behind the work when a batch waits, else one after `SAVE_DELAY_MS`. */
  private schedule(): void {
    if (this.closed || this.unsaved.length === 0 || this.saving !== undefined) return;
    if (this.unsaved.length >= SAVE_BATCH_ROWS) {
      this.saveBehind();
    } else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.saveBehind(), SAVE_DELAY_MS);
      this.timer.unref();
    }
  }

  private saveBehind(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.saving !== undefined) return;
    this.saving = this.saveWaiting().finally(() => {
      this.saving = undefined;
      this.schedule();
    });
  }

  private async saveWaiting(): Promise<void> {
    const rows = this.unsaved;
    this.unsaved = [];
    if (rows.length === 0) return;
    try {
      await this.storage.save(rows);
      this.saved += rows.length;
    } catch {
      this.failures += 1;
    }
  }
}
