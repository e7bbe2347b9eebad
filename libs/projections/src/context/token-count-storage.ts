// The token counts of entries kept beside the context projection (issue 22 item 4), so that the
// first context of a long session after a restart reads its counts instead of counting every
// message again. A count is keyed by the event that recorded the entry, through the event's
// integrity hash (which covers its data), and by the counter's key (its name and the version of
// the way messages are counted): a row can only ever describe the entry it was counted for. Each
// row also records the characters counted; a row whose characters differ from the entry's, or
// that does not read as a count, is ignored and the entry counted again. Counts are a cache: a
// lost or missing row costs a count, never a different answer.
/** Bumped whenever the way a message is counted changes, so older rows are never read. */
export const STORED_TOKEN_COUNTS_VERSION = 1;

/** The key stored counts are kept under for a counter (`o200k/v1`). */
export function storedCountsKey(counterName: string): string {
  return `${counterName}/v${STORED_TOKEN_COUNTS_VERSION}`;
}

/** One entry's count as stored: the hash of the event that recorded the entry, what was counted. */
export interface StoredTokenCount {
  readonly eventHash: string;
  /** UTF-16 characters of the texts counted (the check that the row is this entry's). */
  readonly characters: number;
  readonly tokens: number;
}

/** A count to store for a session under a counter's key. */
export interface TokenCountRow extends StoredTokenCount {
  readonly sessionId: string;
  readonly counterKey: string;
}

export interface TokenCountStorage {
  /** The session's stored counts under `counterKey`, by event hash (rows that do not read are left out). */
  load(sessionId: string, counterKey: string): Promise<ReadonlyMap<string, StoredTokenCount>>;
  /** Stores counts (replacing a row stored for the same event and key: one that was ignored is mended). */
  save(rows: readonly TokenCountRow[]): Promise<void>;
  /** Forgets every count of the session (its stream was erased). */
  forgetSession(sessionId: string): Promise<void>;
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/**
 * The rows that read as counts, by event hash; anything else is left out (never trusted). Three
 * scalars per row are checked by hand rather than by zod: a schema's first use in a new process
 * cost 40 ms for 3,000 rows, a large part of the cold read it is there to shorten.
 */
export function readStoredCounts(rows: readonly unknown[]): Map<string, StoredTokenCount> {
  const counts = new Map<string, StoredTokenCount>();
  for (const row of rows) {
    if (typeof row !== 'object' || row === null) continue;
    const { eventHash, characters, tokens } = row as Partial<Record<keyof StoredTokenCount, unknown>>;
    if (typeof eventHash !== 'string' || eventHash === '' || !isCount(characters) || !isCount(tokens))
      continue;
    counts.set(eventHash, { eventHash, characters, tokens });
  }
  return counts;
}

/** Counts in memory (tests, and stores that keep nothing on disk). */
export class InMemoryTokenCountStorage implements TokenCountStorage {
  private readonly bySession = new Map<string, Map<string, TokenCountRow>>();

  load(sessionId: string, counterKey: string): Promise<ReadonlyMap<string, StoredTokenCount>> {
    const rows = [...(this.bySession.get(sessionId)?.values() ?? [])].filter(
      (row) => row.counterKey === counterKey,
    );
    return Promise.resolve(readStoredCounts(rows));
  }

  save(rows: readonly TokenCountRow[]): Promise<void> {
    for (const row of rows) {
      let session = this.bySession.get(row.sessionId);
      if (session === undefined) {
        session = new Map();
        this.bySession.set(row.sessionId, session);
      }
      session.set(`${row.counterKey} ${row.eventHash}`, row);
    }
    return Promise.resolve();
  }

  forgetSession(sessionId: string): Promise<void> {
    this.bySession.delete(sessionId);
    return Promise.resolve();
  }
}
