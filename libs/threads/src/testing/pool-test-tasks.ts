// Tasks for the task pool's own tests: they run on the pool's threads.
import { isMainThread, threadId } from 'node:worker_threads';

export function describeThread(args: { readonly text: string }): {
  text: string;
  main: boolean;
  thread: number;
} {
  return { text: args.text.toUpperCase(), main: isMainThread, thread: threadId };
}

export class LineError extends Error {
  override readonly name = 'LineError';

  constructor(
    readonly line: number,
    readonly code: string,
  ) {
    super(`line ${line}: ${code}`);
  }
}

export function failAtLine(args: { readonly line: number }): never {
  throw new LineError(args.line, 'bad-line');
}

/** Blocks its thread until the main thread stores 1 at `gate[0]` (no timer involved). */
export function waitForGate(args: { readonly gate: SharedArrayBuffer }): number {
  const cells = new Int32Array(args.gate);
  Atomics.add(cells, 1, 1);
  Atomics.notify(cells, 1);
  while (Atomics.load(cells, 0) === 0) Atomics.wait(cells, 0, 0);
  return threadId;
}

export function endThread(): never {
  process.exit(3);
}

export async function resolveLater(args: { readonly value: number }): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  return args.value * 2;
}

export function byteLengthOf(args: { readonly bytes: Uint8Array }): number {
  return args.bytes.byteLength;
}
