// One HTTP/1.1 connection over a raw socket, for what fetch cannot do: send a request's headers
// and hold its body back, read the answer while the body is unsent, send another request on the
// same connection, and see how the connection ends (closed by the engine, or reset).
import { connect, type Socket } from 'node:net';
import { isEngineUrl, recordApiResponse } from './openapi-conformance/conformance-recorder';

export interface RawAnswer {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** The body parsed as JSON (undefined when it is not). */
  readonly body: unknown;
}

/** How the connection ended: the engine closed it (`closed`), or it was reset (`reset`). */
export type ConnectionEnd = 'closed' | 'reset';

export class RawConnection {
  private static readonly opened = new Set<RawConnection>();
  private received = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private endedAs: ConnectionEnd | undefined;
  /** The requests sent whose answers have not been read, oldest first (HTTP/1.1 answers in order). */
  private readonly unanswered: { readonly method: string; readonly path: string }[] = [];
  /** How the connection ends. */
  readonly ended: Promise<ConnectionEnd>;

  private constructor(
    private readonly socket: Socket,
    private readonly origin: string,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake?.();
    });
    this.ended = new Promise((resolve) => {
      socket.on('error', () => {
        this.endedAs ??= 'reset';
      });
      socket.on('end', () => {
        this.endedAs ??= 'closed';
        socket.end();
      });
      socket.on('close', () => {
        RawConnection.opened.delete(this);
        this.endedAs ??= 'reset';
        resolve(this.endedAs);
        this.wake?.();
      });
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        const connection = new RawConnection(socket, `http://127.0.0.1:${port}`);
        RawConnection.opened.add(connection);
        resolve(connection);
      });
      socket.once('error', reject);
    });
  }

  /** Sends a request line and headers (`Host` added); its body, if any, follows with `send`. */
  head(method: string, path: string, headers: Readonly<Record<string, string | number>>): void {
    this.unanswered.push({ method, path });
    const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1'];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  }

  send(bytes: string | Buffer): void {
    this.socket.write(bytes);
  }

  /** Cuts every connection still open (after a test, so that a failed one holds no engine open). */
  static destroyAll(): void {
    for (const connection of RawConnection.opened) connection.destroy();
  }

  /** Cuts the connection, as a client that goes away. */
  destroy(): void {
    this.socket.destroy();
  }

  /** The next whole answer on the connection (status line, headers and a Content-Length body). */
  async answer(): Promise<RawAnswer> {
    for (;;) {
      const headEnd = this.received.indexOf('\r\n\r\n');
      if (headEnd >= 0) {
        const [statusLine = '', ...lines] = this.received
          .subarray(0, headEnd)
          .toString('latin1')
          .split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        const bodyStart = headEnd + 4;
        if (this.received.length >= bodyStart + length) {
          const text = this.received.subarray(bodyStart, bodyStart + length).toString('utf8');
          this.received = this.received.subarray(bodyStart + length);
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          const status = Number(statusLine.split(' ')[1]);
          const request = this.unanswered.shift();
          if (request !== undefined && isEngineUrl(this.origin)) {
            recordApiResponse({
              method: request.method,
              target: request.path,
              status,
              contentType: headers['content-type'],
              body: text,
            });
          }
          return { status, headers, text, body };
        }
      }
      if (this.endedAs !== undefined || this.socket.destroyed) {
        throw new Error(`the connection ended (${this.endedAs ?? 'destroyed'}) before a whole answer`);
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
