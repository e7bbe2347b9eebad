// SHA-256 of canonical text whose large parts are UTF-8 in shared memory (an entry read off the
// event loop: known-encodings.ts), on a thread of its own. The shared bytes reach that thread
// without a copy; WebCrypto on libuv's pool, the other way off the loop, first copies its input
// on the calling thread (megabytes, for such an entry). One thread, started at the first use and
// not keeping the process alive while idle; its death fails the hashes it was computing, and the
// next hash starts another.
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '@strata/threads';

export interface HashRequest {
  readonly id: number;
  readonly parts: readonly (string | Uint8Array)[];
}

export type HashAnswer =
  { readonly id: number; readonly hash: string } | { readonly id: number; readonly error: string };

interface Pending {
  resolve(hash: string): void;
  reject(error: Error): void;
}

const WORKER = join(__dirname, `parts-hasher.worker${__filename.endsWith('.ts') ? '.ts' : '.js'}`);

class PartsHasher {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  hash(parts: readonly (string | Uint8Array)[]): Promise<string> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, parts } satisfies HashRequest);
    });
  }

  private started(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = startModuleWorker(WORKER);
    worker.on('message', (answer: HashAnswer) => {
      const pending = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if (this.pending.size === 0) worker.unref();
      if ('hash' in answer) pending?.resolve(answer.hash);
      else pending?.reject(new Error(`hashing failed on the hasher thread: ${answer.error}`));
    });
    const lost = (error: Error): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const pending = [...this.pending.values()];
      this.pending.clear();
      for (const waiting of pending) waiting.reject(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the hasher thread exited (code ${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

const hasher = new PartsHasher();

/** Whether the parts hold bytes in shared memory (which `sha256OfSharedParts` hashes uncopied). */
export function holdsSharedBytes(parts: readonly (string | Uint8Array)[]): boolean {
  return parts.some((part) => typeof part !== 'string' && part.buffer instanceof SharedArrayBuffer);
}

/** Lower-case hexadecimal SHA-256 of the parts' UTF-8, in order, on the hasher thread. */
export function sha256OfSharedParts(parts: readonly (string | Uint8Array)[]): Promise<string> {
  return hasher.hash(parts);
}
