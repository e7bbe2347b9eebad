// A SERVER span per HTTP request (issue 26, item 1), continuing the caller's W3C `traceparent`
// (through the propagator the SDK registered, so `OTEL_PROPAGATORS` applies), active for
// everything the request runs: the spans of its appends, imports and attempts, and the GenAI
// spans of their summary calls, are its children. Named `METHOD /route/template` once the route
// is known (`METHOD` alone for a path no route matched), with the HTTP semantic conventions'
// attributes; a 5xx answer marks it failed. A small middleware rather than the Node `http`
// instrumentation: it needs no hook installed before `http` loads, and it knows the route.
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { INSTRUMENTATION_SCOPE } from './engine-spans';

type Middleware = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

/** What Express leaves on a request once a route matched it. */
interface RoutedRequest extends IncomingMessage {
  readonly route?: { readonly path?: unknown };
  readonly baseUrl?: string;
}

/** The route template that answered `request` (`/sessions/:sessionId/entries`), if one did. */
export function routeOf(request: IncomingMessage): string | undefined {
  const { route, baseUrl } = request as RoutedRequest;
  if (typeof route?.path !== 'string') return undefined;
  return `${baseUrl ?? ''}${route.path}`;
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function endServerSpan(
  span: Span,
  request: IncomingMessage,
  response: ServerResponse,
  finished: boolean,
): void {
  const method = request.method ?? '_OTHER';
  const route = routeOf(request);
  const status = response.statusCode;
  span.updateName(route === undefined ? method : `${method} ${route}`);
  if (route !== undefined) span.setAttribute('http.route', route);
  if (finished || response.headersSent) span.setAttribute('http.response.status_code', status);
  if (status >= 500) {
    span.setAttribute('error.type', String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  } else if (!finished) {
    // the client went away before the answer was whole
    span.setAttribute('error.type', 'client_closed');
  }
  span.end();
}

/** Starts a server span per request; use only when the SDK has started (telemetry-sdk.ts). */
export function httpServerSpans(tracer: Tracer = trace.getTracer(INSTRUMENTATION_SCOPE)): Middleware {
  return (request, response, next) => {
    const method = request.method ?? '_OTHER';
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const userAgent = headerValue(request, 'user-agent');
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.path': (request.url ?? '/').split('?')[0] ?? '/',
          'url.scheme': 'http',
          'network.protocol.version': request.httpVersion,
          ...(request.socket.remoteAddress !== undefined
            ? { 'client.address': request.socket.remoteAddress }
            : {}),
          ...(request.socket.localPort !== undefined ? { 'server.port': request.socket.localPort } : {}),
          ...(userAgent !== undefined ? { 'user_agent.original': userAgent } : {}),
        },
      },
      parent,
    );
    let ended = false;
    const end = (finished: boolean): void => {
      if (ended) return;
      ended = true;
      endServerSpan(span, request, response, finished);
    };
    response.once('finish', () => end(true));
    response.once('close', () => end(response.writableFinished));
    context.with(trace.setSpan(parent, span), next);
  };
}
