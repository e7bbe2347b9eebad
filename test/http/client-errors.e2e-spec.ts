// End to end over a raw TCP socket: requests Node's HTTP parser refuses before the engine sees
// them (headers larger than it accepts, a request line that is not HTTP) are answered with
// problem details, as every other refusal of the API, and the connection is closed.
import { connect } from 'node:net';
import { startHttpEngine, type HttpHarness } from './http-harness';

interface RawAnswer {
  readonly statusLine: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Sends `bytes` as they are and reads everything the engine answers until it closes. */
function sendRaw(port: number, bytes: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      resolve({ statusLine, headers, body });
    });
    socket.end(bytes);
  });
}

describe('given a running engine', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine();
  });

  afterAll(() => engine.close());

  it('answers headers larger than Node accepts with 431 problem details', async () => {
    const answer = await sendRaw(
      engine.port,
      `GET /sessions HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(40_000)}\r\n\r\n`,
    );
    expect(answer.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.headers['connection']).toBe('close');
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
    expect(JSON.parse(answer.body)).toMatchObject({ status: 431, code: 'headers_too_large' });
  });

  it('answers a request that is not HTTP with 400 validation problem details', async () => {
    const answer = await sendRaw(engine.port, 'HELLO ENGINE\r\n\r\n');
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({ status: 400, code: 'validation' });
  });

  it('still answers afterwards', async () => {
    expect((await engine.request('GET', '/health')).status).toBe(200);
  });
});
