// A child process of the multi-process SQLite test: waits for "go" on stdin, then appends
// `count` events to the shared stream at exact revisions (retrying on conflict) and `count`
// events in small batches to its own stream, and prints how many conflicts it met.
// Usage: node bin/run-ts.js libs/event-store/src/sqlite/multi-process-append.worker.ts <file> <worker> <count>
import { ConcurrencyError } from '../port';
import { SqliteEventStore } from './sqlite-event-store';

async function main(): Promise<void> {
  const [filename, worker, countText] = process.argv.slice(2);
  if (filename === undefined || worker === undefined || countText === undefined) {
    throw new Error('usage: multi-process-append.worker.ts <file> <worker> <count>');
  }
  const count = Number(countText);
  const store = new SqliteEventStore({ filename, busyTimeoutMs: 30_000 });
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  process.stdin.destroy();
  let conflicts = 0;
  for (let index = 0; index < count; index += 1) {
    const event = { id: `${worker}-shared-${index}`, type: 'shared', data: { worker, index } };
    for (;;) {
      const revision = await store.streamRevision('shared');
      try {
        await store.appendToStream('shared', [event], { expectedRevision: revision ?? 'no_stream' });
        break;
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
        conflicts += 1;
      }
    }
    if (index % 3 === 2) {
      const batch = [0, 1, 2].map((offset) => ({
        id: `${worker}-own-${index - 2 + offset}`,
        type: 'own',
        data: { worker, index: index - 2 + offset },
      }));
      await store.appendToStream(`own-${worker}`, batch);
    }
  }
  await store.close();
  process.stdout.write(`${JSON.stringify({ worker, conflicts })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
