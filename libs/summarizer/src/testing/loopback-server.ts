// A scripted HTTP server on 127.0.0.1 for provider tests: each incoming request is recorded and
// answered by the next scripted reply, so tests exercise real HTTP and the real SDKs.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** Answers one request. `hang` never answers (the client must time out or abort). */
export type ScriptedReply =
  | {
      readonly kind: 'respond';
      readonly status: number;
      readonly body: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'hang' };

export function jsonReply(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): ScriptedReply {
  return {
    kind: 'respond',
    status,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  };
}

export function textReply(
  status: number,
  body: string,
  headers: Readonly<Record<string, string>> = {},
): ScriptedReply {
  return { kind: 'respond', status, body, headers: { 'content-type': 'text/plain', ...headers } };
}

export const hangReply: ScriptedReply = { kind: 'hang' };

export class LoopbackServer {
  readonly requests: RecordedRequest[] = [];
  private readonly replies: ScriptedReply[] = [];
  private readonly waiters: Array<() => void> = [];
  private listeningOrigin = '';

  private constructor(private readonly server: http.Server) {}

  /** Starts a server on an ephemeral loopback port. */
  static async start(): Promise<LoopbackServer> {
    const server = http.createServer();
    const loopback = new LoopbackServer(server);
    server.on('request', (request, response) => loopback.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    loopback.listeningOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return loopback;
  }

  /** `http://127.0.0.1:<port>`; still readable after `close`, for "nobody listens" tests. */
  get origin(): string {
    return this.listeningOrigin;
  }

  /** Queues replies, used in order; when the queue runs out the last reply repeats. */
  script(...replies: ScriptedReply[]): void {
    this.replies.push(...replies);
  }

  /** Resolves once `count` requests have arrived in total. */
  async received(count = 1): Promise<void> {
    while (this.requests.length < count) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** The body of request `index` parsed as JSON (the server's own recording, not outside data). */
  jsonBody(index: number): unknown {
    const request = this.requests[index];
    if (request === undefined) throw new Error(`no request #${index}`);
    return JSON.parse(request.body) as unknown;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const reply = this.replies.length > 1 ? this.replies.shift() : this.replies[0];
      for (const wake of this.waiters.splice(0)) wake();
      if (reply === undefined || reply.kind === 'hang') return;
      response.writeHead(reply.status, reply.headers);
      response.end(reply.body);
    });
  }
}
