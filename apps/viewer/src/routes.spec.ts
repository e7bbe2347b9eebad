import fc from 'fast-check';
import { formatRoute, parseRoute, sessionTabs, type Route } from './routes';

const identifier = fc.string({ minLength: 1, maxLength: 40 });

const routeArbitrary: fc.Arbitrary<Route> = fc.oneof(
  fc.record({ kind: fc.constant('sessions' as const), text: fc.string({ maxLength: 30 }) }),
  fc.record({
    kind: fc.constant('session' as const),
    sessionId: identifier,
    tab: fc.constantFrom(...sessionTabs),
    entryId: fc.option(identifier, { nil: undefined }),
    compactionId: fc.option(identifier, { nil: undefined }),
  }),
);

describe('given a place in the viewer', () => {
  it('reads back every route it writes, whatever the ids contain', () => {
    fc.assert(fc.property(routeArbitrary, (route) => expect(parseRoute(formatRoute(route))).toEqual(route)));
  });

  it('opens the sessions list for an empty or unknown fragment, and the tree for a session without tab', () => {
    expect(parseRoute('')).toEqual({ kind: 'sessions', text: '' });
    expect(parseRoute('#/nowhere')).toEqual({ kind: 'sessions', text: '' });
    expect(parseRoute('#/session/abc')).toMatchObject({ kind: 'session', sessionId: 'abc', tab: 'tree' });
  });
});
