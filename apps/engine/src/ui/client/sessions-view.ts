// The sessions of the caller's tenant, most recently active first, with the catalog's figures
// and a text search (title or working directory). Refreshes itself when sessions start, grow or
// are compacted. Arrow keys move between the rows' links.
import { getJson, type QueryValues } from './api.js';
import type { SessionList, SessionSummary } from './api-types.js';
import { element, replaceChildren } from './dom.js';
import { EventFeed, type FeedState } from './event-feed.js';
import { formatCost, formatCount, formatTime } from './previews.js';
import { formatRoute } from './routes.js';
import type { ViewContext } from './view.js';

const PAGE_SIZE = 50;
const SEARCH_DELAY_MS = 250;
const RELOAD_DELAY_MS = 400;
const LIVE_TYPES = 'session_start,entry_appended,session_tree,session_compact';

const columns: readonly { readonly caption: string; readonly className: string }[] = [
  { caption: 'Session', className: 'col-title' },
  { caption: 'Working directory', className: 'col-cwd' },
  { caption: 'Entries', className: 'col-number' },
  { caption: 'Messages', className: 'col-number col-optional' },
  { caption: 'Compactions', className: 'col-number' },
  { caption: 'Branch summaries', className: 'col-number col-optional' },
  { caption: 'Tokens', className: 'col-number' },
  { caption: 'Cost', className: 'col-number col-optional' },
  { caption: 'Last activity', className: 'col-time' },
];

export class SessionsView {
  readonly element: HTMLElement;
  private readonly search: HTMLInputElement;
  private readonly body: HTMLTableSectionElement;
  private readonly status: HTMLElement;
  private readonly more: HTMLButtonElement;
  private sessions: SessionSummary[] = [];
  private nextCursor: string | null = null;
  private searchTimer: number | undefined;
  private reloadTimer: number | undefined;
  private readonly feed: EventFeed;

  constructor(
    private readonly context: ViewContext,
    private text: string,
  ) {
    this.search = element('input', {
      className: 'search',
      attributes: {
        type: 'search',
        placeholder: 'Search title or directory',
        'aria-label': 'Search sessions',
      },
      on: { input: () => this.onSearchInput() },
    });
    this.search.value = text;
    this.status = element('p', { className: 'list-status', attributes: { role: 'status' } });
    this.body = element('tbody');
    this.body.addEventListener('keydown', (event) => this.onRowKey(event));
    this.more = element('button', {
      className: 'button',
      text: 'Load more',
      on: { click: () => void this.load(true) },
    });
    this.more.hidden = true;
    const table = element('table', { className: 'sessions-table' }, [
      element('thead', {}, [
        element(
          'tr',
          {},
          columns.map((column) =>
            element('th', {
              className: column.className,
              text: column.caption,
              attributes: { scope: 'col' },
            }),
          ),
        ),
      ]),
      this.body,
    ]);
    this.element = element(
      'section',
      { className: 'sessions-view', attributes: { 'aria-labelledby': 'sessions-title' } },
      [
        element('div', { className: 'view-heading' }, [
          element('h1', { text: 'Sessions', attributes: { id: 'sessions-title' } }),
          this.search,
        ]),
        this.status,
        element('div', { className: 'table-scroll' }, [table]),
        this.more,
      ],
    );
    this.feed = new EventFeed({
      query: { types: LIVE_TYPES },
      onEvent: () => this.scheduleReload(),
      onState: (state: FeedState) => context.showFeedState(state),
    }).start();
    void this.load(false);
  }

  dispose(): void {
    this.feed.close();
    window.clearTimeout(this.searchTimer);
    window.clearTimeout(this.reloadTimer);
  }

  focusSearch(): void {
    this.search.focus();
  }

  private onSearchInput(): void {
    window.clearTimeout(this.searchTimer);
    this.searchTimer = window.setTimeout(() => {
      this.text = this.search.value.trim();
      history.replaceState(null, '', formatRoute({ kind: 'sessions', text: this.text }));
      void this.load(false);
    }, SEARCH_DELAY_MS);
  }

  private scheduleReload(): void {
    window.clearTimeout(this.reloadTimer);
    this.reloadTimer = window.setTimeout(() => void this.load(false), RELOAD_DELAY_MS);
  }

  private async load(more: boolean): Promise<void> {
    const query: QueryValues = {
      limit: PAGE_SIZE,
      ...(this.text !== '' ? { text: this.text } : {}),
      ...(more && this.nextCursor !== null ? { cursor: this.nextCursor } : {}),
    };
    this.status.textContent = 'Loading…';
    try {
      const page = await getJson<SessionList>('/sessions', query);
      this.sessions = more ? [...this.sessions, ...page.items] : [...page.items];
      this.nextCursor = page.nextCursor;
      this.render(page.total);
    } catch (error) {
      this.context.reportError(error, this.status);
    }
  }

  private render(total: number): void {
    const matching = this.text === '' ? '' : ` matching “${this.text}”`;
    this.status.textContent = `${formatCount(total)} session${total === 1 ? '' : 's'}${matching}`;
    this.more.hidden = this.nextCursor === null;
    replaceChildren(
      this.body,
      this.sessions.length === 0
        ? [
            element('tr', {}, [
              element('td', {
                className: 'empty',
                text: 'No sessions.',
                attributes: { colspan: String(columns.length) },
              }),
            ]),
          ]
        : this.sessions.map((session) => this.row(session)),
    );
  }

  private row(session: SessionSummary): HTMLTableRowElement {
    const link = element('a', {
      className: 'session-link',
      text: session.title ?? session.sessionId,
      attributes: {
        href: formatRoute({
          kind: 'session',
          sessionId: session.sessionId,
          tab: 'tree',
          entryId: undefined,
          compactionId: undefined,
        }),
        title: session.sessionId,
      },
    });
    const cells: readonly (string | HTMLElement)[] = [
      element('div', {}, [
        link,
        session.title !== null && element('div', { className: 'muted mono', text: session.sessionId }),
      ]),
      session.cwd,
      formatCount(session.entryCount),
      formatCount(session.messageCount),
      formatCount(session.compactionCount),
      formatCount(session.branchSummaryCount),
      formatCount(session.usage.totalTokens),
      formatCost(session.usage.cost),
      formatTime(session.lastActivityAt),
    ];
    return element(
      'tr',
      { dataset: { sessionId: session.sessionId } },
      cells.map((cell, position) =>
        element(
          'td',
          {
            className: columns[position]?.className ?? '',
            attributes: { 'data-caption': columns[position]?.caption ?? '' },
          },
          [cell],
        ),
      ),
    );
  }

  private onRowKey(event: KeyboardEvent): void {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const links = [...this.body.querySelectorAll<HTMLAnchorElement>('a.session-link')];
    const current = links.findIndex((link) => link === document.activeElement);
    if (current === -1) return;
    const next = links[current + (event.key === 'ArrowDown' ? 1 : -1)];
    if (next === undefined) return;
    next.focus();
    event.preventDefault();
  }
}
