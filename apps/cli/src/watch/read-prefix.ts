// The part of a followed file already read and stored: its length, the entries it made and the
// SHA-256 of its bytes, with the bytes kept from its start (where the header line names the
// session) and from just before its end, so that each step can tell cheaply whether the file
// still starts and ends that part as it did before trusting what comes after it.
import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** Bytes kept of what was read first (the header line names the session) and last, compared with the file at every step. */
const HEAD_BYTES = 1024;
const TAIL_BYTES = 64;

export class ReadPrefix {
  /** Bytes read and stored from the file's start. */
  offset = 0;
  /** Entries those bytes made. */
  entryCount = 0;
  private readonly hash: Hash = createHash('sha256');
  private head: Buffer = Buffer.alloc(0);
  private tail: Buffer = Buffer.alloc(0);

  /** The hash of the bytes read so far, hex. */
  get sha256(): string {
    return this.hash.copy().digest('hex');
  }

  /** Adds the next `bytes` of the file, which made `entries` entries (no bytes: entries the reader released). */
  add(bytes: Buffer, entries: number): void {
    this.entryCount += entries;
    if (bytes.length === 0) return;
    this.hash.update(bytes);
    if (this.head.length < HEAD_BYTES) {
      this.head = Buffer.concat([this.head, bytes.subarray(0, HEAD_BYTES - this.head.length)]);
    }
    this.offset += bytes.length;
    const kept = bytes.length >= TAIL_BYTES ? bytes : Buffer.concat([this.tail, bytes]);
    this.tail = Buffer.from(kept.subarray(Math.max(0, kept.length - TAIL_BYTES)));
  }

  /** Whether the file still holds, at its start and just before `offset`, the bytes read there. */
  async endsAsRead(handle: FileHandle): Promise<boolean> {
    for (const [kept, position] of [
      [this.head, 0],
      [this.tail, this.offset - this.tail.length],
    ] as const) {
      if (kept.length === 0) continue;
      const bytes = Buffer.alloc(kept.length);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, position);
      if (bytesRead !== bytes.length || !bytes.equals(kept)) return false;
    }
    return true;
  }
}
