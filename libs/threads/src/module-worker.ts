// Starting a worker thread on one of the repository's modules, whether it runs as compiled
// JavaScript or as TypeScript sources (tests, `bin/`): a `.ts` module is loaded through the
// repository's swc hook (scripts/register.js, found above the module), which a new thread must
// install again because module hooks belong to the thread that set them.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

function registerHookAbove(modulePath: string): string {
  for (let directory = dirname(modulePath); ; directory = dirname(directory)) {
    const candidate = join(directory, 'scripts', 'register.js');
    if (existsSync(candidate)) return candidate;
    if (dirname(directory) === directory) {
      throw new Error(`no scripts/register.js above ${modulePath} to load it as TypeScript`);
    }
  }
}

/** A worker thread running the module at `modulePath` (absolute, `.ts` or `.js`). */
export function startModuleWorker(modulePath: string, options: WorkerOptions = {}): Worker {
  if (!modulePath.endsWith('.ts')) return new Worker(modulePath, options);
  const bootstrap = `require(${JSON.stringify(registerHookAbove(modulePath))});\nrequire(${JSON.stringify(modulePath)});\n`;
  return new Worker(bootstrap, { ...options, eval: true });
}
