// A cheap HTTP client for one tenant of the engine child: plain node:http over a keep-alive agent,
// the tenant's key on every request, bodies handed over as buffers (built once by the caller) so
// that the client spends next to nothing of the cores it shares with the engine.
import * as http from 'node:http';

const REQUEST_TIMEOUT_MS = 120_000;

export interface Answer {
  readonly status: number;
  readonly body: Buffer;
}

export interface RequestBody {
  /** Written in order; their lengths make the Content-Length. */
  readonly chunks: readonly Buffer[];
  readonly contentType: string;
}

export function jsonBody(value: unknown): RequestBody {
  return { chunks: [Buffer.from(JSON.stringify(value))], contentType: 'application/json' };
}

export class TenantHttp {
  readonly agent: http.Agent;

  /** `maxSockets`: the requests this tenant can have in flight at once (more wait for a socket). */
  constructor(
    readonly baseUrl: string,
    readonly tenant: string,
    private readonly key: string,
    maxSockets = 8,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  /** The Authorization header's value for this tenant. */
  get authorization(): string {
    return `Bearer ${this.key}`;
  }

  headers(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
    return { authorization: this.authorization, ...extra };
  }

  /** One request; resolves with the status and the whole answer, rejects on a socket error or timeout. */
  request(method: string, path: string, body?: RequestBody): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers = this.headers(
        body === undefined
          ? {}
          : {
              'content-type': body.contentType,
              'content-length': String(body.chunks.reduce((sum, chunk) => sum + chunk.length, 0)),
            },
      );
      const request = http.request(
        `${this.baseUrl}${path}`,
        { method, headers, agent: this.agent, timeout: REQUEST_TIMEOUT_MS },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }),
          );
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      request.on('error', reject);
      for (const chunk of body?.chunks ?? []) request.write(chunk);
      request.end();
    });
  }

  /** A request that must answer `expected`; throws naming the answer otherwise. */
  async expect(expected: number, method: string, path: string, body?: RequestBody): Promise<Answer> {
    const answer = await this.request(method, path, body);
    if (answer.status !== expected) {
      throw new Error(
        `${this.tenant}: ${method} ${path} answered ${answer.status} (expected ${expected}): ` +
          answer.body.toString('utf8').slice(0, 300),
      );
    }
    return answer;
  }

  close(): void {
    this.agent.destroy();
  }
}
