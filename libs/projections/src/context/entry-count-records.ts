// What a SessionView needs to take token counts from storage and to give its new ones back: the
// counts stored for the session's events (offered while it hydrates), the event hash of each
// entry not counted yet, and the counts made since they were last taken. A stored count is
// taken only for the entry's own message (never for a pruned result's notice) and only when it
// covers as many characters as that message: any other row is ignored (token-count-storage.ts).
import {
  compactionSummaryMessage,
  messageFromEntry,
  messageTokenPieces,
  type AgentMessage,
  type SessionEntry,
} from '@strata/session';
import type { StoredTokenCount } from './token-count-storage';

/** The characters of the texts a count of `message` covers. */
function countedCharacters(message: AgentMessage): number {
  let characters = 0;
  for (const piece of messageTokenPieces(message).pieces) characters += piece.length;
  return characters;
}

/** What an entry puts in a context before any pruning: its message, or a compaction's summary. */
function ownMessage(entry: SessionEntry): AgentMessage | undefined {
  return entry.type === 'compaction' ? compactionSummaryMessage(entry) : messageFromEntry(entry);
}

const noCounts: readonly StoredTokenCount[] = [];

export class EntryCountRecords {
  private stored: ReadonlyMap<string, StoredTokenCount> | undefined;
  private readonly hashesOfUncounted = new Map<string, string>();
  private fresh: StoredTokenCount[] = [];

  /** Counts stored for the session's events, for the entries applied next; `undefined` withdraws them. */
  offer(counts: ReadonlyMap<string, StoredTokenCount> | undefined): void {
    this.stored = counts;
  }

  /**
   * The stored count of a new, unpruned entry recorded by the event of `eventHash`, when one
   * matches; otherwise undefined, and for an entry that puts a message in a context the event is
   * noted, so that the entry's count is kept once made.
   */
  adopt(entry: SessionEntry, eventHash: string): number | undefined {
    const message = ownMessage(entry);
    if (message === undefined) return undefined;
    const stored = this.stored?.get(eventHash);
    if (stored !== undefined && countedCharacters(message) === stored.characters) return stored.tokens;
    this.hashesOfUncounted.set(entry.id, eventHash);
    return undefined;
  }

  /** The entry was counted: keeps the count to store when it is of the entry's own message. */
  counted(entry: SessionEntry, tokens: number, pruned: boolean): void {
    const eventHash = this.hashesOfUncounted.get(entry.id);
    if (eventHash === undefined) return;
    this.hashesOfUncounted.delete(entry.id);
    const message = pruned ? undefined : ownMessage(entry);
    if (message !== undefined) this.fresh.push({ eventHash, characters: countedCharacters(message), tokens });
  }

  /** The entry's result was pruned: its own message is never counted again here. */
  pruned(entryId: string): void {
    this.hashesOfUncounted.delete(entryId);
  }

  /** Entries waiting for a count to store, with their event's hash (what a snapshot keeps). */
  uncounted(): (readonly [string, string])[] {
    return [...this.hashesOfUncounted];
  }

  /** Takes the entries waiting for a count from a snapshot. */
  noteUncounted(pairs: readonly (readonly [string, string])[]): void {
    for (const [entryId, eventHash] of pairs) this.hashesOfUncounted.set(entryId, eventHash);
  }

  /** The counts made since the last call. */
  take(): readonly StoredTokenCount[] {
    if (this.fresh.length === 0) return noCounts;
    const counts = this.fresh;
    this.fresh = [];
    return counts;
  }
}
