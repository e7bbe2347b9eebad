// The tests' HTTP client: one request over node:http on a keep-alive agent, sent again when the
// server closed a reused connection before answering. A server closes an idle kept-alive socket
// at its keep-alive timeout; a request the client wrote on that socket at the same moment is
// reset (ECONNRESET, "socket hang up") and never reached the server's handlers. fetch hides both
// facts a safe retry needs (whether the socket was reused, whether any answer byte came back).
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface KeepAliveRequest {
  readonly method: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface KeepAliveAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** How many times a request is written at most (the stale sockets of a pool are few). */
const MAX_ATTEMPTS = 5;

/** What one attempt ended with: an answer, or an error and whether sending again is safe. */
type Attempt =
  | { readonly kind: 'answered'; readonly answer: KeepAliveAnswer }
  | { readonly kind: 'failed'; readonly error: Error; readonly staleSocket: boolean };

/**
 * Sends `request` on `agent`. It is sent again only when the server closed the connection before
 * a single byte of the answer arrived AND the connection was a reused kept-alive one: the stale
 * socket race, where the server never saw the request. That holds for every method, POST and
 * DELETE included, and is the only case retried: a fresh connection that fails, or a connection
 * that fails after the answer began, is reported as is (the server may have acted on it).
 */
export async function sendWithStaleSocketRetry(
  agent: Agent,
  request: KeepAliveRequest,
): Promise<KeepAliveAnswer> {
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await sendOnce(agent, request);
    if (outcome.kind === 'answered') return outcome.answer;
    if (!outcome.staleSocket || attempt >= MAX_ATTEMPTS) throw outcome.error;
  }
}

function sendOnce(agent: Agent, request: KeepAliveRequest): Promise<Attempt> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
    const outgoing = httpRequest(request.url, { method: request.method, agent, headers });
    let bytesReadBefore: number | undefined;
    let answerBegan = false;
    outgoing.on('socket', (socket) => {
      // The socket's count is over its whole life; what it read before this request was the
      // answers to earlier requests.
      bytesReadBefore = socket.bytesRead;
    });
    outgoing.on('error', (error) => {
      const socket = outgoing.socket;
      const nothingRead =
        !answerBegan &&
        (socket === null || bytesReadBefore === undefined || socket.bytesRead === bytesReadBefore);
      const closedByServer = /ECONNRESET|EPIPE|socket hang up|other side closed/.test(
        `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}`,
      );
      resolve({ kind: 'failed', error, staleSocket: outgoing.reusedSocket && nothingRead && closedByServer });
    });
    outgoing.on('response', (incoming) => {
      answerBegan = true;
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', (error) => resolve({ kind: 'failed', error, staleSocket: false }));
      incoming.on('end', () =>
        resolve({
          kind: 'answered',
          answer: {
            status: incoming.statusCode ?? 0,
            headers: headersOf(incoming.headers),
            text: Buffer.concat(chunks).toString('utf8'),
          },
        }),
      );
    });
    outgoing.end(request.body);
  });
}

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}
