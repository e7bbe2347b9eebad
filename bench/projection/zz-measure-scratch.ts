// Scratch measurement (not committed): first context after a restart through the engine and in process.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeRestartStore, primeStoredCounts, engineRestartTimings, restartCases } from './restart-cases';

async function main() {
  const restarts = Number(process.argv[2] ?? '5');
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'cold-'));
  const store = await writeRestartStore(directory);
  await primeStoredCounts(store.file);
  const progress = { step: (_s: string, m: string) => process.stderr.write(m + '\n') } as never;
  console.log('load before', fs.readFileSync('/proc/loadavg', 'utf8').trim());
  const timings = await engineRestartTimings(store, directory, restarts, progress);
  console.log(JSON.stringify(timings, (_k, v) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v)));
  const cases = restartCases(store);
  const inproc: Record<string, number[]> = {};
  for (let round = 0; round < 10; round += 1) {
    for (const c of cases) {
      const state = await c.setup!();
      const t = performance.now();
      await c.run(state as never);
      (inproc[c.name] ??= []).push(Math.round((performance.now() - t) * 10) / 10);
      await c.teardown!(state as never);
    }
  }
  console.log(JSON.stringify(inproc));
  console.log('load after', fs.readFileSync('/proc/loadavg', 'utf8').trim());
  fs.rmSync(directory, { recursive: true, force: true });
}
void main();
