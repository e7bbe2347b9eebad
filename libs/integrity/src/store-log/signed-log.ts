// A store's signed log (decision 0018): entries appended in one chain, each given the next
// position and the hash of the entry before it and then signed. Several engines may append to one
// store's log: each write names the head it chained to, the store refuses it when the head moved,
// and the entries are chained and signed again on the new head. Appends through one log object
// are written one after another, so an engine alone never has to retry.
import type { Anchor, AnchorSigningKey } from '../anchors/anchor';
import { LOG_GENESIS_HASH, signLogEntry, type LogEntry, type LogEntryBody } from './log-entry';
import type { LoggedItem, LogHead, LogStorage, LogRead } from './log-storage';

/** One entry to log: what it records, when, and the tenant whose reads may see it (not signed). */
export interface EntryToLog {
  readonly body: LogEntryBody;
  readonly time: Date;
  readonly tenant?: string;
}

/** The log's head moved under every retry: too many other writers at once. */
export class LogContentionError extends Error {
  override readonly name = 'LogContentionError';
}

const MAX_ATTEMPTS = 20;

export class SignedLog {
  private queue: Promise<unknown> = Promise.resolve();
  private knownHead: LogHead | undefined;

  constructor(readonly storage: LogStorage) {}

  /** Appends the entries in one write, chained after the log's head and signed with `key`. */
  append(entries: readonly EntryToLog[], key: AnchorSigningKey): Promise<readonly LogEntry[]> {
    if (entries.length === 0) return Promise.resolve([]);
    const written = this.queue.then(() => this.appendNow(entries, key));
    this.queue = written.catch(() => undefined);
    return written;
  }

  /** The log's last entry: its position and hash (the genesis hash after the legacy anchors, or at 0, when none is chained). */
  async head(): Promise<LogHead> {
    return this.storage.head();
  }

  /** Every entry after `after` (legacy anchors included), in log order. */
  entries(after: bigint = 0n): AsyncIterable<LoggedItem> {
    return this.storage.entries(after);
  }

  /** The anchors a query selects (legacy and chained), in log order, each with its position. */
  read(query: LogRead = {}): AsyncIterable<Anchor & { readonly position: string }> {
    return this.storage.anchors(query);
  }

  private async appendNow(
    entries: readonly EntryToLog[],
    key: AnchorSigningKey,
  ): Promise<readonly LogEntry[]> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const head = this.knownHead ?? (await this.storage.head());
      const signed = chain(head, entries, key);
      const outcome = await this.storage.writeIfHead(
        head,
        signed.map((entry, index) => ({ entry, tenant: entries[index]!.tenant })),
      );
      if (outcome.written) {
        const last = signed[signed.length - 1]!;
        this.knownHead = { position: BigInt(last.position), hash: last.hash };
        return signed;
      }
      this.knownHead = outcome.head;
    }
    throw new LogContentionError(
      `the signed log's head moved ${MAX_ATTEMPTS} times while entries were appended`,
    );
  }
}

function chain(head: LogHead, entries: readonly EntryToLog[], key: AnchorSigningKey): LogEntry[] {
  const signed: LogEntry[] = [];
  let position = head.position;
  let previousHash = head.hash;
  for (const { body, time } of entries) {
    position += 1n;
    const entry = signLogEntry(
      body,
      { position: position.toString(), previousHash, time: time.toISOString() },
      key,
    );
    signed.push(entry);
    previousHash = entry.hash;
  }
  return signed;
}

/** The head of a log with no entry at all. */
export const EMPTY_LOG_HEAD: LogHead = { position: 0n, hash: LOG_GENESIS_HASH };
