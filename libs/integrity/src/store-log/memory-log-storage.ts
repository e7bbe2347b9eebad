// The signed log of an in-memory store (tests): an array beside the store.
import type { Anchor } from '../anchors/anchor';
import { LOG_GENESIS_HASH, type CheckpointLogEntry, type LogEntry } from './log-entry';
import {
  anchorSelected,
  type LoggedItem,
  type LogHead,
  type LogRead,
  type LogStorage,
  type WriteOutcome,
} from './log-storage';

export class InMemoryLogStorage implements LogStorage {
  private readonly items: { readonly entry: LogEntry; readonly tenant: string | undefined }[] = [];

  head(): Promise<LogHead> {
    const last = this.items[this.items.length - 1];
    return Promise.resolve(
      last === undefined
        ? { position: 0n, hash: LOG_GENESIS_HASH }
        : { position: BigInt(last.entry.position), hash: last.entry.hash },
    );
  }

  async writeIfHead(
    expected: LogHead,
    entries: readonly { readonly entry: LogEntry; readonly tenant: string | undefined }[],
  ): Promise<WriteOutcome> {
    const head = await this.head();
    if (head.position !== expected.position || head.hash !== expected.hash) return { written: false, head };
    this.items.push(...entries);
    return { written: true };
  }

  lastCheckpoint(): Promise<CheckpointLogEntry | undefined> {
    const found = this.items.findLast(({ entry }) => entry.kind === 'checkpoint');
    return Promise.resolve(found?.entry as CheckpointLogEntry | undefined);
  }

  async *entries(after: bigint): AsyncIterable<LoggedItem> {
    await Promise.resolve();
    for (const { entry, tenant } of this.items) {
      if (BigInt(entry.position) > after)
        yield { source: 'chained', entry, ...(tenant !== undefined ? { tenant } : {}) };
    }
  }

  async *anchors(query: LogRead): AsyncIterable<Anchor & { readonly position: string }> {
    await Promise.resolve();
    const after = query.after ?? 0n;
    for (const { entry, tenant } of this.items) {
      if (entry.kind !== 'anchor' || BigInt(entry.position) <= after) continue;
      if (anchorSelected(entry, tenant, query)) yield entry;
    }
  }
}
