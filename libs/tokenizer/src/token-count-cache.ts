// Counts of long texts kept between requests, so that the synchronous counting of the domain
// finds them ready. A text is known by the SHA-256 of its UTF-8 bytes: looking one up costs a
// hash (about 1.5 GB/s here) instead of a count (a few MB/s), the key does not keep the text
// alive, and no crafted text can take another's count. The least recently used go first.
import { createHash } from 'node:crypto';

/** Counts kept by default: about 10 MB of keys. */
export const DEFAULT_KEPT_COUNTS = 65_536;

export function textKey(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

export class TokenCountCache {
  /** Least recently used first (a Map keeps insertion order; a use re-inserts). */
  private readonly counts = new Map<string, number>();

  constructor(readonly capacity: number = DEFAULT_KEPT_COUNTS) {
    if (!(capacity >= 1)) throw new Error('a token count cache holds at least one count');
  }

  get size(): number {
    return this.counts.size;
  }

  get(key: string): number | undefined {
    const tokens = this.counts.get(key);
    if (tokens !== undefined) {
      this.counts.delete(key);
      this.counts.set(key, tokens);
    }
    return tokens;
  }

  set(key: string, tokens: number): void {
    this.counts.delete(key);
    this.counts.set(key, tokens);
    if (this.counts.size > this.capacity) {
      const oldest = this.counts.keys().next();
      if (oldest.done !== true) this.counts.delete(oldest.value);
    }
  }
}
