// Memory figures: a snapshot of `process.memoryUsage()`, and the heap a value keeps alive
// (measured across forced garbage collections when the runtime lets us force them).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface MemorySnapshot {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  readonly externalBytes: number;
  readonly arrayBuffersBytes: number;
}

export function memorySnapshot(): MemorySnapshot {
  const usage = process.memoryUsage();
  return {
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    heapTotalBytes: usage.heapTotal,
    externalBytes: usage.external,
    arrayBuffersBytes: usage.arrayBuffers,
  };
}

let collector: (() => void) | null | undefined;

/**
 * A function that forces a full garbage collection, or null. `--expose-gc` is switched on at
 * run time and the `gc` function picked up from a fresh context, so `npm run bench` needs no flag.
 */
export function garbageCollector(): (() => void) | null {
  if (collector !== undefined) return collector;
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') {
    collector = exposed;
    return collector;
  }
  try {
    setFlagsFromString('--expose-gc');
    const fromContext: unknown = runInNewContext('gc');
    collector = typeof fromContext === 'function' ? (fromContext as () => void) : null;
  } catch {
    collector = null;
  }
  return collector;
}

export interface RetainedHeap<Value> {
  readonly value: Value;
  /** Heap bytes still used after `build` returned and garbage was collected; null without a collector. */
  readonly retainedBytes: number | null;
}

/** Builds a value and reports how much heap it keeps alive (the value itself is returned). */
export function measureRetainedHeap<Value>(build: () => Value): RetainedHeap<Value> {
  const collect = garbageCollector();
  if (collect === null) return { value: build(), retainedBytes: null };
  collect();
  collect();
  const before = process.memoryUsage().heapUsed;
  const value = build();
  collect();
  collect();
  const after = process.memoryUsage().heapUsed;
  return { value, retainedBytes: Math.max(0, after - before) };
}

/** Like `measureRetainedHeap`, for a value built asynchronously. */
export async function measureRetainedHeapAsync<Value>(
  build: () => Promise<Value>,
): Promise<RetainedHeap<Value>> {
  const collect = garbageCollector();
  if (collect === null) return { value: await build(), retainedBytes: null };
  collect();
  collect();
  const before = process.memoryUsage().heapUsed;
  const value = await build();
  collect();
  collect();
  const after = process.memoryUsage().heapUsed;
  return { value, retainedBytes: Math.max(0, after - before) };
}
