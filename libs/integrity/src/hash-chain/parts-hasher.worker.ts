// The thread of parts-hasher.ts: SHA-256 of each request's parts, in order, answered by id.
import { createHash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import type { HashAnswer, HashRequest } from './parts-hasher';

function answerOf(request: HashRequest): HashAnswer {
  try {
    const hash = createHash('sha256');
    for (const part of request.parts) hash.update(part);
    return { id: request.id, hash: hash.digest('hex') };
  } catch (error) {
    return { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
}

const port = parentPort;
if (port === null) throw new Error('parts-hasher.worker runs only as a worker thread');
port.on('message', (request: HashRequest) => port.postMessage(answerOf(request)));
