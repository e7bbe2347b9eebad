// A thread of the task pool: runs one task at a time, each an export of a module it loads on
// first use (so the pool knows no task in advance), and answers with the value or the error.
import { parentPort } from 'node:worker_threads';
import { serializeTaskError, type TaskOutcome, type TaskRequest } from './task-protocol';

type TaskFunction = (args: unknown) => unknown;

async function outcomeOf(request: TaskRequest): Promise<TaskOutcome> {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require(request.module) as Record<string, unknown>;
    const task = loaded[request.task];
    if (typeof task !== 'function') throw new TypeError(`${request.module} has no task ${request.task}`);
    return { id: request.id, ok: true, value: await (task as TaskFunction)(request.args) };
  } catch (error) {
    return { id: request.id, ok: false, error: serializeTaskError(error) };
  }
}

function run(): void {
  const port = parentPort;
  if (port === null) throw new Error('task-thread.worker runs only as a worker thread');
  port.on('message', (request: TaskRequest) => {
    void outcomeOf(request).then((outcome) => port.postMessage(outcome));
  });
}

run();
