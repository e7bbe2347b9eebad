// The tests' HTTP client against a tiny real server that drops connections the way servers do:
// a request written on a kept-alive socket the server is closing is retried on a new one; a
// request the server may have acted on is not.
import { Agent, createServer, type Server, type ServerResponse, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendWithStaleSocketRetry } from './keep-alive-request';

type Behaviour = (request: IncomingMessage, response: ServerResponse, requestOnSocket: number) => void;

/** A server on loopback calling `behaviour` with how many requests its socket carried so far. */
async function serve(behaviour: Behaviour): Promise<{ server: Server; url: string; seen: string[] }> {
  const seen: string[] = [];
  const requestsBySocket = new WeakMap<object, number>();
  const server = createServer((request, response) => {
    const requestOnSocket = (requestsBySocket.get(request.socket) ?? 0) + 1;
    requestsBySocket.set(request.socket, requestOnSocket);
    seen.push(`${request.method ?? ''} ${request.url ?? ''} #${requestOnSocket}`);
    request.resume();
    request.on('end', () => behaviour(request, response, requestOnSocket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const answer = (response: ServerResponse, text: string): void => {
  response.writeHead(200, { 'content-type': 'text/plain' }).end(text);
};

describe('a request on a kept-alive connection', () => {
  let agent: Agent;
  let server: Server | undefined;

  beforeEach(() => {
    agent = new Agent({ keepAlive: true });
  });

  afterEach(async () => {
    agent.destroy();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it.each(['GET', 'POST', 'DELETE'])(
    'is sent again (%s) when the server closes the reused connection before answering',
    async (method) => {
      // As at a server's keep-alive timeout: the first answer keeps the socket open, and the
      // server then closes it without answering the request the client wrote on it.
      // (Closing it in the handler makes the race certain; nothing is answered either way.)
      const running = await serve((request, response, requestOnSocket) => {
        if (requestOnSocket === 1) answer(response, request.url ?? '');
        else response.socket?.destroy();
      });
      server = running.server;
      const first = await sendWithStaleSocketRetry(agent, { method: 'GET', url: `${running.url}/one` });
      expect(first.text).toBe('/one');

      const second = await sendWithStaleSocketRetry(agent, {
        method,
        url: `${running.url}/two`,
        body: method === 'GET' ? undefined : '{}',
      });

      expect(second).toMatchObject({ status: 200, text: '/two' });
      expect(running.seen).toEqual(['GET /one #1', `${method} /two #2`, `${method} /two #1`]);
    },
  );

  it('is not sent again when a fresh connection is closed before the answer', async () => {
    const running = await serve((_request, response) => response.socket?.destroy());
    server = running.server;

    await expect(
      sendWithStaleSocketRetry(agent, { method: 'POST', url: `${running.url}/once`, body: '{}' }),
    ).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(running.seen).toEqual(['POST /once #1']);
  });

  it('is not sent again when the reused connection closes after the answer began', async () => {
    const running = await serve((_request, response, requestOnSocket) => {
      if (requestOnSocket === 1) return answer(response, 'whole');
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
      response.write('partial', () => response.socket?.destroy());
    });
    server = running.server;
    await sendWithStaleSocketRetry(agent, { method: 'GET', url: `${running.url}/one` });

    await expect(
      sendWithStaleSocketRetry(agent, { method: 'GET', url: `${running.url}/cut` }),
    ).rejects.toThrow(/aborted|ECONNRESET|socket hang up/);
    expect(running.seen).toEqual(['GET /one #1', 'GET /cut #2']);
  });
});
