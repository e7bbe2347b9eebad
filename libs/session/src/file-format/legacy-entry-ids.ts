// Deterministic entry ids for v1 files, whose entries have none. An id depends only on the
// session id and the entry's index in the file (header = 0), so importing the same file twice
// yields the same tree. Format: 8 lowercase hex chars, like the reference's own entry ids.

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The UTF-8 bytes of a string (lone surrogates become U+FFFD, as TextEncoder does). */
function utf8Bytes(text: string): number[] {
  const bytes: number[] = [];
  for (const character of text) {
    let codePoint = character.codePointAt(0) ?? 0xfffd;
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) codePoint = 0xfffd;
    if (codePoint < 0x80) bytes.push(codePoint);
    else if (codePoint < 0x800) bytes.push(0xc0 | (codePoint >> 6), 0x80 | (codePoint & 0x3f));
    else if (codePoint < 0x10000)
      bytes.push(0xe0 | (codePoint >> 12), 0x80 | ((codePoint >> 6) & 0x3f), 0x80 | (codePoint & 0x3f));
    else
      bytes.push(
        0xf0 | (codePoint >> 18),
        0x80 | ((codePoint >> 12) & 0x3f),
        0x80 | ((codePoint >> 6) & 0x3f),
        0x80 | (codePoint & 0x3f),
      );
  }
  return bytes;
}

/** 32-bit FNV-1a of the UTF-8 bytes of `text`, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET_BASIS;
  for (const byte of utf8Bytes(text)) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME) >>> 0;
  }
  return hash;
}

/**
 * The id of the v1 entry at `fileIndex`: FNV-1a of `"<sessionId>:<fileIndex>"`, or of
 * `"<sessionId>:<fileIndex>:<attempt>"` for attempts 1, 2… while the id is already taken.
 */
export function legacyEntryId(sessionId: string, fileIndex: number, taken: ReadonlySet<string>): string {
  for (let attempt = 0; ; attempt += 1) {
    const key = attempt === 0 ? `${sessionId}:${fileIndex}` : `${sessionId}:${fileIndex}:${attempt}`;
    const id = fnv1a32(key).toString(16).padStart(8, '0');
    if (!taken.has(id)) return id;
  }
}
