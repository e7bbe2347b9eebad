// A remote summary endpoint (POST {systemPrompt, prompt} → {summary}) that misbehaves on
// request: slow, silent, erroring, answering garbage or cutting the connection. Used by the
// failure tests, in-process or as the summariser of an engine process.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

export type EndpointBehaviour =
  | {
      readonly kind: 'summary';
      readonly summary: string;
      readonly delayMs?: number;
      /** Answers only once this settles (a model as slow as the test needs). */
      readonly until?: Promise<void>;
    }
  /** Keeps the request open without answering (until the client gives up or the server closes). */
  | { readonly kind: 'hang' }
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly body: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** 200 with this body as it is (not JSON, or JSON without a summary). */
  | { readonly kind: 'raw'; readonly body: string; readonly contentType?: string }
  /** Sends the status line and headers, then a part of the body, and stops. */
  | { readonly kind: 'partial' }
  /** Destroys the connection without an answer. */
  | { readonly kind: 'reset' };

export class SummaryEndpoint {
  private behaviour: EndpointBehaviour = { kind: 'summary', summary: '## Goal\n- keep going' };
  private readonly sockets = new Set<Socket>();
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  requests = 0;
  /** The body of every request, in arrival order. */
  readonly bodies: string[] = [];

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<SummaryEndpoint> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = new SummaryEndpoint(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/summarize`,
    );
    server.on('connection', (socket) => {
      endpoint.sockets.add(socket);
      socket.once('close', () => endpoint.sockets.delete(socket));
    });
    server.on('request', (request, response) => endpoint.answer(request, response));
    return endpoint;
  }

  /** How every following request is answered. */
  behave(behaviour: EndpointBehaviour): void {
    this.behaviour = behaviour;
  }

  /** Resolves once `count` requests have arrived in total. */
  received(count: number): Promise<void> {
    if (this.requests >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      this.bodies.push(Buffer.concat(chunks).toString('utf8'));
      this.requests += 1;
      for (const waiter of this.waiters.filter((candidate) => candidate.count <= this.requests)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      this.reply(request, response, this.behaviour);
    });
  }

  private reply(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    behaviour: EndpointBehaviour,
  ): void {
    switch (behaviour.kind) {
      case 'summary': {
        const send = (): void => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ summary: behaviour.summary }));
        };
        if (behaviour.until !== undefined) void behaviour.until.then(send);
        else if (behaviour.delayMs === undefined) send();
        else setTimeout(send, behaviour.delayMs).unref();
        return;
      }
      case 'hang':
        return;
      case 'status':
        response.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
        response.end(behaviour.body);
        return;
      case 'raw':
        response.writeHead(200, { 'content-type': behaviour.contentType ?? 'application/json' });
        response.end(behaviour.body);
        return;
      case 'partial':
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        response.write('{"summary":"half');
        setTimeout(() => request.socket.destroy(), 20).unref();
        return;
      case 'reset':
        request.socket.destroy();
        return;
      default: {
        const unhandled: never = behaviour;
        throw new Error(`unhandled behaviour ${JSON.stringify(unhandled)}`);
      }
    }
  }
}
