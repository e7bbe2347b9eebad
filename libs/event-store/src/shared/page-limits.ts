// Pages bounded in events and in bytes (`PageLimits` in the port): the one rule every adapter
// applies while it fills a page, and a size estimate for adapters that only see parsed JSON.
import { DEFAULT_PAGE_BYTES, type PageLimits } from '../port';

/** The limits of an adapter's pages: its configured values, else `defaultCount` and 1 MiB. */
export function pageLimitsOf(
  configured: { readonly maxCount?: number | undefined; readonly maxBytes?: number | undefined },
  defaultCount: number,
): PageLimits {
  const maxCount = configured.maxCount ?? defaultCount;
  const maxBytes = configured.maxBytes ?? DEFAULT_PAGE_BYTES;
  if (!Number.isSafeInteger(maxCount) || maxCount < 1) {
    throw new RangeError(`a page holds at least one event, not ${maxCount}`);
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new RangeError(`a page's byte limit is a positive integer, not ${maxBytes}`);
  }
  return { maxCount, maxBytes };
}

/** Counts what a page holds so far; `add` says whether the page is full after the event. */
export class PageFill {
  private count = 0;
  private bytes = 0;

  constructor(private readonly limits: PageLimits) {}

  add(eventBytes: number): boolean {
    this.count += 1;
    this.bytes += eventBytes;
    return this.count >= this.limits.maxCount || this.bytes >= this.limits.maxBytes;
  }
}

/**
 * About the length of `value` as JSON text, without writing it: the lengths of its strings and
 * keys plus a little for each other value. Linear in the value's size; used where an adapter
 * receives events already parsed (EventStoreDB's client).
 */
export function approximateJsonLength(value: unknown): number {
  let total = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      total += next.length + 2;
    } else if (next instanceof Uint8Array) {
      total += next.byteLength;
    } else if (Array.isArray(next)) {
      total += 2 + next.length;
      for (const item of next as unknown[]) pending.push(item);
    } else if (typeof next === 'object' && next !== null) {
      total += 2;
      for (const [key, inner] of Object.entries(next)) {
        total += key.length + 4;
        pending.push(inner);
      }
    } else {
      total += 8;
    }
  }
  return total;
}
