// Counts of long texts kept between requests, so that the synchronous counting of the domain
// finds them ready. A text is known by the SHA-256 of its UTF-8 bytes: looking one up costs a
// hash (about 1.5 GB/s here) instead of a count (a few MB/s), the key does not keep the text
// alive (only the last few texts are kept, to spare hashing them again, at most 16 Mi
// characters), and no crafted text can take another's count. The least recently used go first.
import { createHash } from 'node:crypto';

/** Counts kept by default: about 10 MB of keys. */
export const DEFAULT_KEPT_COUNTS = 65_536;

/** Texts whose keys are remembered by the text itself (see `textKey`), and their characters in all. */
export const RECENT_KEYS = { texts: 8, characters: 16 * 2 ** 20 } as const;

interface RecentKey {
  readonly text: string;
  readonly key: string;
}

/** The keys of the long texts looked up last, most recent last (bounded by RECENT_KEYS). */
let recentKeys: RecentKey[] = [];
let recentCharacters = 0;
let hashesComputed = 0;

/**
 * The key of a text: the SHA-256 of its UTF-8 bytes. One entry's text is looked up by several
 * readers in a row (the append's count ahead, the compaction forecast, the context projection),
 * so the keys of the last few texts are remembered: comparing a text with a remembered one
 * costs a length check, or a comparison of the characters, where the hash costs its encoding
 * and SHA-256 over megabytes each time.
 */
export function textKey(text: string): string {
  for (let index = recentKeys.length - 1; index >= 0; index -= 1) {
    const recent = recentKeys[index]!;
    if (recent.text.length === text.length && recent.text === text) return recent.key;
  }
  const key = createHash('sha256').update(text, 'utf8').digest('base64');
  hashesComputed += 1;
  remember({ text, key });
  return key;
}

function remember(recent: RecentKey): void {
  if (recent.text.length > RECENT_KEYS.characters) return;
  recentKeys.push(recent);
  recentCharacters += recent.text.length;
  while (recentKeys.length > RECENT_KEYS.texts || recentCharacters > RECENT_KEYS.characters) {
    recentCharacters -= recentKeys.shift()!.text.length;
  }
}

/** How many texts `textKey` has hashed (the others it remembered). */
export function textKeysHashed(): number {
  return hashesComputed;
}

/** Forgets the remembered keys (tests). */
export function forgetRecentTextKeys(): void {
  recentKeys = [];
  recentCharacters = 0;
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
