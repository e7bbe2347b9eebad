// How deeply a parsed JSON value nests, checked at the trust boundaries (session-file lines,
// HTTP bodies). `JSON.parse` accepts any depth, but what follows it — hashing the canonical
// JSON of an event, the stores' serialisers, structured clones — recurses once per level and
// overflows the stack past a few thousand levels. Real session data nests a few dozen levels;
// anything deeper than MAX_JSON_DEPTH is refused as input instead of crashing a writer.

/** The deepest nesting accepted: an array or object inside 511 others. */
export const MAX_JSON_DEPTH = 512;

/**
 * Whether `value` nests arrays and objects more than `limit` levels deep (a scalar is level 0,
 * `[]` and `{}` level 1). Iterative, so it cannot overflow itself; stops at the first breach.
 */
export function exceedsJsonDepth(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const pending: { readonly value: unknown; readonly depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    const children = Array.isArray(next.value) ? next.value : Object.values(next.value);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) pending.push({ value: child, depth });
    }
  }
  return false;
}
