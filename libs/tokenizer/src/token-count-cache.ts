// Counts of long texts kept between requests, so that the synchronous counting of the domain
// finds them ready. A text is known by the SHA-256 of its UTF-8 bytes: looking one up costs a
// hash (about 1.5 GB/s here) instead of a count (a few MB/s), the key does not keep the text
// alive (only the last few texts are kept, to spare hashing them again, at most 16 Mi
// characters), and no crafted text can take another's count. The least recently used go first
// (an lru-cache bounded by count). The few remembered keys stay a list scanned from the newest:
// eight entries found by comparing the text itself, the oldest out first, need no cache library.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

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

/**
 * Remembers the key of a text worked out elsewhere (`textKey` on a worker thread, for a text the
 * worker counted), so that looking the text up here does not hash it again.
 */
export function rememberTextKey(text: string, key: string): void {
  remember({ text, key });
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
  private readonly counts: LRUCache<string, number>;

  constructor(readonly capacity: number = DEFAULT_KEPT_COUNTS) {
    if (!(capacity >= 1)) throw new Error('a token count cache holds at least one count');
    this.counts = new LRUCache({ max: Math.floor(capacity) });
  }

  get size(): number {
    return this.counts.size;
  }

  get(key: string): number | undefined {
    return this.counts.get(key);
  }

  set(key: string, tokens: number): void {
    this.counts.set(key, tokens);
  }
}
