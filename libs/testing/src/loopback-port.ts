// A loopback port nothing listens on right now: for tests that start a server later on a port a
// client was already given (a store that comes up after the engine, say).
import { createServer } from 'node:net';

export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no loopback port was given');
  return address.port;
}
