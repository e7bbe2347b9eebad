// The writer thread of one SQLite file: owns this process's only write connection to it and
// runs every write request it is sent through the group-commit executor. Requests that arrive
// while a batch runs (or while another connection holds the write lock) are taken from the port
// synchronously and join the next batch. Waiting for the lock happens here, never on the thread
// that answers HTTP.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openWriterConnection, type WriterConnectionOptions } from './sqlite-writer-connection';
import { SqliteWriteExecutor } from './sqlite-write-executor';
import { serializeError, type FromWriter, type ToWriter, type WriteRequest } from './sqlite-write-protocol';

function run(): void {
  const port = parentPort;
  if (port === null) throw new Error('sqlite-writer.worker runs only as a worker thread');
  const send = (message: FromWriter): void => port.postMessage(message);
  let executor: SqliteWriteExecutor;
  try {
    executor = new SqliteWriteExecutor(openWriterConnection(workerData as WriterConnectionOptions));
  } catch (error) {
    send({ type: 'failed', error: serializeError(error) });
    return;
  }
  let closing = false;
  const close = (): void => {
    executor.database.close();
    send({ type: 'closed' });
    port.close();
  };
  const take = (message: ToWriter, into: WriteRequest[]): void => {
    if (message.type === 'close') closing = true;
    else into.push(...message.requests);
  };
  const arrived = (): WriteRequest[] => {
    const requests: WriteRequest[] = [];
    for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port)) {
      take(next.message as ToWriter, requests);
    }
    return requests;
  };
  port.on('message', (message: ToWriter) => {
    const pending: WriteRequest[] = [];
    take(message, pending);
    executor.drain(pending, (outcomes) => send({ type: 'outcomes', outcomes }), arrived);
    if (closing) close();
  });
  send({ type: 'ready' });
}

run();
