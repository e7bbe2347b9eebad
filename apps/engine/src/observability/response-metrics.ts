// The HTTP metrics of every response, counted when it finishes: by method and status (the first
// metrics, kept as they were), and by method, route and status. The route is the template of the
// route that served the request as Express matched it (`/sessions/:id/entries`), never the path a
// client sent, so the label has one value per route of the API, plus `unmatched` for every
// request no route served (an unknown path, or one answered before routing: a draining engine).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineMetrics } from './engine-metrics.service';

export const UNMATCHED_ROUTE = 'unmatched';

type Middleware = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

/** The request as Express leaves it once a route has matched. */
interface RoutedRequest extends IncomingMessage {
  readonly baseUrl?: unknown;
  readonly route?: { readonly path?: unknown };
}

/** The template of the route that served `request`, or `unmatched`. */
export function routeTemplateOf(request: IncomingMessage): string {
  const { route, baseUrl } = request as RoutedRequest;
  if (typeof route?.path !== 'string') return UNMATCHED_ROUTE;
  return `${typeof baseUrl === 'string' ? baseUrl : ''}${route.path}`;
}

export function responseMetrics(metrics: EngineMetrics): Middleware {
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    const method = request.method ?? 'UNKNOWN';
    response.on('finish', () => {
      const status = String(response.statusCode);
      const route = routeTemplateOf(request);
      metrics.httpResponses.increment({ method, status });
      metrics.httpRouteResponses.increment({ method, route, status });
      const isEventStream = String(response.getHeader('content-type') ?? '').startsWith('text/event-stream');
      if (!isEventStream) {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        metrics.httpDuration.observe({ method }, seconds);
        metrics.httpRouteDuration.observe({ method, route }, seconds);
      }
    });
    next();
  };
}
