import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { UNMATCHED_ROUTE, routeTemplateOf } from './response-metrics';

function request(url: string, routed: { baseUrl?: string; routePath?: unknown } = {}): IncomingMessage {
  const message = new IncomingMessage(new Socket());
  message.url = url;
  if (routed.baseUrl !== undefined) Object.assign(message, { baseUrl: routed.baseUrl });
  if (routed.routePath !== undefined) Object.assign(message, { route: { path: routed.routePath } });
  return message;
}

describe('given requests as the router leaves them', () => {
  it('names the template of the route that matched, never the path sent', () => {
    expect(
      routeTemplateOf(request('/sessions/s-1/entries', { routePath: '/sessions/:sessionId/entries' })),
    ).toBe('/sessions/:sessionId/entries');
  });

  it('puts the mount path of a router before its route', () => {
    expect(
      routeTemplateOf(request('/v2/sessions/s-1', { baseUrl: '/v2', routePath: '/sessions/:sessionId' })),
    ).toBe('/v2/sessions/:sessionId');
  });

  it('names every request no route served unmatched', () => {
    expect(routeTemplateOf(request('/no/such/path'))).toBe(UNMATCHED_ROUTE);
    expect(routeTemplateOf(request('/odd', { routePath: /^\/odd$/ }))).toBe(UNMATCHED_ROUTE);
  });
});
