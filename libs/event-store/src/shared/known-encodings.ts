// The texts of a large JSON value worked out once, away from the event loop, and found again by
// the value itself. An 8 MiB entry arriving over HTTP is parsed on a worker thread, which also
// writes its JSON text (what the store keeps, as UTF-8 in shared memory: stored-text.ts) and the
// UTF-8 of its canonical JSON (what the hash chain covers); the event loop then only splices
// those texts into the event around it instead of walking megabytes of text twice more. Only a frozen value is remembered, so its texts can
// never go stale, and only by identity (a WeakMap): a copy of it, or any other value, is written
// out in full as before. The texts must be exactly what `JSON.stringify` and canonical JSON give
// for the value; whoever remembers them vouches for that.

import type { StoredText, Utf8Text } from './stored-text';

export interface KnownEncoding {
  /** The value's JSON text, as `JSON.stringify` writes it. */
  readonly json: StoredText;
  /** The UTF-8 bytes of the value's canonical JSON (@strata/integrity canonical-json.ts). */
  readonly canonicalUtf8: Uint8Array;
}

const known = new WeakMap<object, KnownEncoding>();
/**
 * How many values have texts remembered and not yet forgotten (a value collected unforgotten
 * still counts): while none have, every lookup is skipped, so appends of small entries pay
 * nothing for this.
 */
let remembered = 0;

/** Remembers the texts of a frozen object (a TypeError for one that is not frozen). */
export function rememberEncoding(value: object, encoding: KnownEncoding): void {
  if (!Object.isFrozen(value)) throw new TypeError('only the encoding of a frozen value can be remembered');
  if (!known.has(value)) remembered += 1;
  known.set(value, encoding);
}

/**
 * Forgets the texts of a value once they have served (its append is written or refused): a
 * remembered value otherwise keeps its texts alive as long as itself, and the caches that hold an
 * entry would hold twice its size again in shared memory.
 */
export function forgetEncoding(value: object): void {
  if (known.delete(value)) remembered -= 1;
}

/** The texts remembered for this very value, if any. */
export function knownEncodingOf(value: unknown): KnownEncoding | undefined {
  return remembered > 0 && typeof value === 'object' && value !== null ? known.get(value) : undefined;
}

/**
 * The JSON text of a plain object with at least one member whose texts are known, spliced from
 * them and `JSON.stringify` of the other members (a string, or UTF-8 parts when a known text is
 * shared UTF-8); undefined for anything else (write it in full). Only direct members are looked
 * up: an event's data holds its large value one level down.
 */
export function splicedJson(value: unknown): StoredText | undefined {
  if (remembered === 0 || typeof value !== 'object' || value === null || Array.isArray(value)) {
    return undefined;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (!keys.some((key) => known.has(record[key] as object))) return undefined;
  const parts = new Utf8Parts();
  parts.add('{');
  let first = true;
  for (const key of keys) {
    const member = record[key];
    const text = knownEncodingOf(member)?.json ?? JSON.stringify(member);
    // as JSON.stringify does, a member with no JSON form (undefined, a function) is left out
    if (text === undefined) continue;
    parts.add(`${first ? '' : ','}${JSON.stringify(key)}:`);
    parts.add(text);
    first = false;
  }
  parts.add('}');
  return parts.text();
}

/** Text gathered from strings and UTF-8 parts: adjacent strings joined, a string if no bytes. */
class Utf8Parts {
  private readonly parts: (string | Uint8Array)[] = [];
  private pending = '';
  /** The length of everything added, as a string. */
  private chars = 0;

  add(text: StoredText): void {
    if (typeof text === 'string') {
      this.pending += text;
      this.chars += text.length;
      return;
    }
    this.chars += text.chars;
    for (const part of text.utf8) {
      if (typeof part === 'string') this.pending += part;
      else {
        this.flushPending();
        this.parts.push(part);
      }
    }
  }

  text(): StoredText {
    if (this.parts.length === 0) return this.pending;
    this.flushPending();
    return { utf8: this.parts, chars: this.chars } satisfies Utf8Text;
  }

  private flushPending(): void {
    if (this.pending === '') return;
    this.parts.push(this.pending);
    this.pending = '';
  }
}

/**
 * Whether `value` is exactly what its spliced JSON text parses back to: a plain object with a
 * member whose texts are known, and only such members (frozen, vouched for) and JSON primitives
 * besides. The store then hands it to its readers instead of parsing the text it wrote.
 */
export function isSplicedJson(value: unknown): boolean {
  if (remembered === 0 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  let spliced = false;
  for (const member of Object.values(value as Record<string, unknown>)) {
    if (known.has(member as object)) spliced = true;
    else if (!isJsonPrimitive(member)) return false;
  }
  return spliced;
}

function isJsonPrimitive(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value) && !Object.is(value, -0))
  );
}
