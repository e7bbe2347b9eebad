// A loopback HTTP server for end-to-end tests that reach summarisers over real HTTP: each path
// answers from its own script (the last reply repeats) and every request is recorded.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderReply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Wait this long before answering (a slow provider). */
  readonly delayMs?: number;
}

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

export class ProviderServer {
  readonly requests: ReceivedRequest[] = [];
  private readonly scripts = new Map<string, ProviderReply[]>();

  private constructor(
    private readonly server: http.Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<ProviderServer> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const provider = new ProviderServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (request, response) => provider.handle(request, response));
    return provider;
  }

  /** Replies for `path`, used in order; the last one repeats. */
  script(path: string, ...replies: ProviderReply[]): void {
    this.scripts.set(path, [...(this.scripts.get(path) ?? []), ...replies]);
  }

  requestsTo(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const text = Buffer.concat(chunks).toString('utf8');
      this.requests.push({
        path,
        headers: request.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      });
      const script = this.scripts.get(path) ?? [];
      const reply =
        script.length > 1 ? script.shift()! : (script[0] ?? { status: 404, body: { error: 'unscripted' } });
      const answer = (): void => {
        if (response.destroyed) return;
        response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        response.end(JSON.stringify(reply.body));
      };
      if (reply.delayMs === undefined) answer();
      else setTimeout(answer, reply.delayMs).unref();
    });
  }
}

/** An Anthropic Messages API answer. */
export function anthropicMessage(text: string, model = 'claude-test'): ProviderReply {
  return {
    status: 200,
    body: {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 30 },
    },
  };
}

/** An OpenAI Chat Completions answer. */
export function chatCompletion(text: string, model = 'local-model'): ProviderReply {
  return {
    status: 200,
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    },
  };
}
