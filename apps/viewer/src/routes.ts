// The viewer's places as URL fragments, so that the back button and links work:
// `#/?q=text` (the sessions list) and `#/session/<id>/<tab>?entry=<id>&compaction=<id>`.

export const sessionTabs = ['tree', 'timeline', 'context', 'compare', 'events'] as const;
export type SessionTab = (typeof sessionTabs)[number];

export type Route =
  | { readonly kind: 'sessions'; readonly text: string }
  | {
      readonly kind: 'session';
      readonly sessionId: string;
      readonly tab: SessionTab;
      /** The selected entry (tree) and the leaf of the context tab. */
      readonly entryId: string | undefined;
      /** The compaction entry compared on the before/after tab. */
      readonly compactionId: string | undefined;
    };

function isSessionTab(text: string | undefined): text is SessionTab {
  return (sessionTabs as readonly (string | undefined)[]).includes(text);
}

export function parseRoute(hash: string): Route {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  const [path = '', queryText = ''] = text.split('?', 2);
  const query = new URLSearchParams(queryText);
  const parts = path.split('/').filter((part) => part !== '');
  if (parts[0] === 'session' && parts[1] !== undefined) {
    return {
      kind: 'session',
      sessionId: decodeURIComponent(parts[1]),
      tab: isSessionTab(parts[2]) ? parts[2] : 'tree',
      entryId: query.get('entry') ?? undefined,
      compactionId: query.get('compaction') ?? undefined,
    };
  }
  return { kind: 'sessions', text: query.get('q') ?? '' };
}

export function formatRoute(route: Route): string {
  switch (route.kind) {
    case 'sessions':
      return route.text === '' ? '#/' : `#/?${new URLSearchParams({ q: route.text }).toString()}`;
    case 'session': {
      const query = new URLSearchParams();
      if (route.entryId !== undefined) query.set('entry', route.entryId);
      if (route.compactionId !== undefined) query.set('compaction', route.compactionId);
      const queryText = query.toString();
      const path = `#/session/${encodeURIComponent(route.sessionId)}/${route.tab}`;
      return queryText === '' ? path : `${path}?${queryText}`;
    }
    default: {
      const unhandled: never = route;
      throw new Error(`unhandled route ${JSON.stringify(unhandled)}`);
    }
  }
}
