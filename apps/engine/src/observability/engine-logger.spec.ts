import type { IncomingMessage, ServerResponse } from 'node:http';
import { colourfulOutput, engineLogger, engineNotices } from './engine-logger';
import { requestContextMiddleware, traceOf } from './request-context';

function captureStdout(work: () => void): string[] {
  const written: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  try {
    work();
  } finally {
    spy.mockRestore();
  }
  return written;
}

function insideRequest(headers: Record<string, string>, work: () => void): Record<string, unknown> {
  const answered: Record<string, unknown> = {};
  const response = { setHeader: (name: string, value: unknown) => (answered[name] = value) };
  requestContextMiddleware({ keepContext: true })(
    { headers } as unknown as IncomingMessage,
    response as unknown as ServerResponse,
    work,
  );
  return answered;
}

describe('the engine’s JSON log lines', () => {
  it('carry the time, and inside a request its id and the caller’s trace context, on stdout at every level', () => {
    const logger = engineLogger(['error', 'warn', 'log'], 'json');
    if (logger === false) throw new Error('a logger was expected');
    let answered: Record<string, unknown> = {};
    const written = captureStdout(() => {
      logger.log('outside', 'Test');
      answered = insideRequest(
        { 'x-request-id': 'r-1', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        () => logger.error('inside', undefined, 'Test'),
      );
    });
    const [outside, inside] = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(outside).toMatchObject({ level: 'log', message: 'outside', context: 'Test' });
    expect(new Date(outside?.['time'] as string).getTime()).toBe(outside?.['timestamp']);
    expect(outside).not.toHaveProperty('requestId');
    expect(inside).toMatchObject({
      level: 'error',
      message: 'inside',
      requestId: 'r-1',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
    });
    expect(answered).toEqual({ 'x-request-id': 'r-1' });
  });

  it('logs nothing at level silent, and colours text only on a terminal without NO_COLOR', () => {
    expect(engineLogger(false, 'json')).toBe(false);
    expect(colourfulOutput({ isTTY: true }, {})).toBe(true);
    expect(colourfulOutput({ isTTY: false }, {})).toBe(false);
    expect(colourfulOutput({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
  });

  it('writes the engine’s notices as lines on stderr in text, as JSON objects on stdout in JSON', () => {
    const out: string[] = [];
    const err: string[] = [];
    const sink = { stdout: (text: string) => out.push(text), stderr: (text: string) => err.push(text) };
    engineNotices('text', sink)('stopped after 12 ms');
    engineNotices('json', sink)('stopped after 12 ms', { phase: 'stop' });
    expect(err).toEqual(['Strata engine: stopped after 12 ms\n']);
    expect(JSON.parse(out[0] ?? '')).toMatchObject({
      level: 'log',
      context: 'Engine',
      message: 'stopped after 12 ms',
      phase: 'stop',
    });
  });
});

describe('the trace context of a request', () => {
  it.each([
    ['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', true],
    ['00-00000000000000000000000000000000-b7ad6b7169203331-01', false],
    ['00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01', false],
    ['01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', false],
    ['00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01', false],
    ['garbage', false],
  ])('reads %s as valid: %s', (header, valid) => {
    expect(traceOf(header) !== undefined).toBe(valid);
  });
});
