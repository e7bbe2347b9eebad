// The server span of a request, recorded by the SDK's in-memory exporter around a loopback HTTP
// server whose handler plays the routed application (Express leaves `route` on the request).
import { SpanKind, SpanStatusCode, propagation } from '@opentelemetry/api';
import { core, tracing } from '@opentelemetry/sdk-node';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpServerSpans } from './http-server-spans';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

async function serve(answer: (request: http.IncomingMessage, response: http.ServerResponse) => void) {
  const exporter = new tracing.InMemorySpanExporter();
  const provider = new tracing.BasicTracerProvider({
    spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
  });
  const middleware = httpServerSpans(provider.getTracer('test'));
  const server = http.createServer((request, response) =>
    middleware(request, response, () => answer(request, response)),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    exporter,
    origin,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function routed(path: string, status: number) {
  return (request: http.IncomingMessage, response: http.ServerResponse): void => {
    Object.assign(request, { route: { path } });
    response.statusCode = status;
    response.end('{}');
  };
}

beforeAll(() => propagation.setGlobalPropagator(new core.W3CTraceContextPropagator()));
afterAll(() => propagation.disable());

describe('the server span of a request', () => {
  it("continues the caller's traceparent and is named by the route that answered", async () => {
    const served = await serve(routed('/sessions/:sessionId/entries', 200));
    const response = await fetch(`${served.origin}/sessions/s1/entries?text=secret`, {
      method: 'POST',
      headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    });
    await response.arrayBuffer();
    await served.close();

    const [span] = served.exporter.getFinishedSpans();
    expect(span?.name).toBe('POST /sessions/:sessionId/entries');
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/sessions/:sessionId/entries',
      'url.path': '/sessions/s1/entries',
      'http.response.status_code': 200,
    });
    expect(JSON.stringify(span?.attributes)).not.toContain('secret');
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('starts a trace of its own without traceparent, and is named by the method alone when no route matched', async () => {
    const served = await serve((_request, response) => {
      response.statusCode = 404;
      response.end();
    });
    await (await fetch(`${served.origin}/nowhere`)).arrayBuffer();
    await served.close();

    const [span] = served.exporter.getFinishedSpans();
    expect(span?.name).toBe('GET');
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.attributes['http.route']).toBeUndefined();
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('marks a 5xx answer ERROR with the status as error.type', async () => {
    const served = await serve(routed('/ready', 503));
    await (await fetch(`${served.origin}/ready`)).arrayBuffer();
    await served.close();

    const [span] = served.exporter.getFinishedSpans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes).toMatchObject({ 'error.type': '503', 'http.response.status_code': 503 });
  });
});
