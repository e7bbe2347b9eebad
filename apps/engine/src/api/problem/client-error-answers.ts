// Requests that Node's HTTP parser refuses before any handler runs (headers larger than it
// accepts, a request line that is not HTTP, a request that does not arrive in time) answered as
// problem details, like every other refusal of the API, instead of Node's empty answers. The
// connection is closed after the answer, as Node does; a socket that cannot take an answer (reset,
// or a response already under way on it) is destroyed.
import { STATUS_CODES, maxHeaderSize, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { problemStatuses, problemTitles, type ProblemCode } from './api-errors';
import { PROBLEM_CONTENT_TYPE } from './problem-details';

/** The code and detail for one of Node's parser errors (by its `code`), as Node picks its status. */
export function clientErrorProblem(
  errorCode: string | undefined,
  maxHeaderBytes: number,
): {
  readonly code: ProblemCode;
  readonly detail: string;
} {
  switch (errorCode ?? 'unreadable') {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'headers_too_large',
        detail: `the request line and headers are larger than the limit of ${maxHeaderBytes} bytes`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', detail: 'the chunk extensions of the request body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', detail: 'the request did not arrive in time' };
    default:
      return {
        code: 'validation',
        detail: `the request is not valid HTTP/1.1 (${errorCode ?? 'unreadable'})`,
      };
  }
}

/** The whole answer on the wire: status line, headers, the problem document. */
export function clientErrorAnswer(errorCode: string | undefined, maxHeaderBytes: number): string {
  const { code, detail } = clientErrorProblem(errorCode, maxHeaderBytes);
  const status = problemStatuses[code];
  const body = JSON.stringify({
    type: `/docs#problem-${code}`,
    title: problemTitles[code],
    status,
    detail,
    code,
  });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

type ParserSocket = Duplex & { readonly _httpMessage?: { readonly headersSent?: boolean } | null };

/** Answers the server's client errors with problem details from now on. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: ParserSocket) => {
    const answering = socket._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || answering?.headersSent === true) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorAnswer(error.code, maxHeaderSize));
  });
}
