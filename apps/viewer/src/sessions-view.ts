// The sessions of the caller's tenant, most recently active first, with the catalog's figures,
// each visible row's integrity (its verification, a few at a time, kept until the session
// changes), a search inside the sessions (their entries, titles and directories), and the
// tenant's erased sessions with their records, and two charts (compactions per day, tokens by
// tenant). Refreshes itself when sessions start, grow or are compacted. Arrow keys move between
// the rows' links.
import { ApiError, errorMessage, getJson, sessionPath, type QueryValues } from './api.js';
import type { SearchMatch, SearchResults, SessionList, SessionSummary } from '@strata/client/browser';
import { overviewCharts } from './overview-charts.js';
import { describeErasure, erasureRecordsOf, type ErasureRecord } from './erasures.js';
import { integrityOf, type IntegrityStatement } from './integrity.js';
import { element, replaceChildren } from './dom.js';
import { EventFeed, type FeedState } from './event-feed.js';
import { formatCost, formatCount, formatTime } from './previews.js';
import { formatRoute } from './routes.js';
import type { ViewContext } from './view.js';

const PAGE_SIZE = 50;
const SEARCH_DELAY_MS = 250;
const RELOAD_DELAY_MS = 400;
const LIVE_TYPES = 'session_start,entry_appended,session_tree,session_compact';
/** Verifications asked at once (each reads a whole stream). */
const VERIFY_CONCURRENCY = 2;

/** Verifications by session, kept for as long as the session's position is the same. */
const verified = new Map<string, { readonly position: string; readonly statement: IntegrityStatement }>();

const columns: readonly { readonly caption: string; readonly className: string }[] = [
  { caption: 'Session', className: 'col-title' },
  { caption: 'Integrity', className: 'col-integrity' },
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
  private readonly erasures: HTMLElement;
  private readonly charts: HTMLElement;
  private sessions: (SessionSummary & { readonly match?: SearchMatch | null })[] = [];
  private nextCursor: string | null = null;
  private nextOffset: number | null = null;
  private truncated = false;
  private verifyQueue: SessionSummary[] = [];
  private verifying = 0;
  private disposed = false;
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
        placeholder: 'Search sessions (what they say, title, directory)',
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
        (this.charts = element('div', { className: 'charts', attributes: { 'aria-label': 'Charts' } })),
        element('div', { className: 'table-scroll' }, [table]),
        this.more,
        (this.erasures = element('section', {
          className: 'erasures',
          attributes: { 'aria-label': 'Erased sessions' },
        })),
      ],
    );
    this.erasures.hidden = true;
    this.feed = new EventFeed({
      query: { types: LIVE_TYPES },
      onEvent: () => this.scheduleReload(),
      onState: (state: FeedState) => context.showFeedState(state),
    }).start();
    void this.load(false);
    void this.loadErasures();
    void this.loadCharts();
  }

  dispose(): void {
    this.disposed = true;
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
    this.reloadTimer = window.setTimeout(() => {
      void this.load(false);
      void this.loadCharts();
    }, RELOAD_DELAY_MS);
  }

  private async load(more: boolean): Promise<void> {
    this.status.textContent = 'Loading…';
    try {
      if (this.text !== '') {
        const page = await getJson<SearchResults>('/sessions', {
          q: this.text,
          limit: PAGE_SIZE,
          ...(more && this.nextOffset !== null ? { offset: this.nextOffset } : {}),
        });
        this.sessions = more ? [...this.sessions, ...page.items] : [...page.items];
        this.nextOffset = page.nextOffset;
        this.nextCursor = null;
        this.truncated = page.truncated;
        this.render(page.total);
        return;
      }
      const query: QueryValues = {
        limit: PAGE_SIZE,
        ...(more && this.nextCursor !== null ? { cursor: this.nextCursor } : {}),
      };
      const page = await getJson<SessionList>('/sessions', query);
      this.sessions = more ? [...this.sessions, ...page.items] : [...page.items];
      this.nextCursor = page.nextCursor;
      this.nextOffset = null;
      this.truncated = false;
      this.render(page.total);
    } catch (error) {
      this.context.reportError(error, this.status);
    }
  }

  private async loadCharts(): Promise<void> {
    try {
      const charts = await overviewCharts();
      if (!this.disposed) replaceChildren(this.charts, charts);
    } catch (error) {
      this.context.reportError(error, this.charts);
    }
  }

  /** The tenant's erased sessions; nothing is shown when there are none (or the engine keeps none). */
  private async loadErasures(): Promise<void> {
    try {
      const records = erasureRecordsOf(await getJson<unknown>('/erasures'));
      if (this.disposed) return;
      this.renderErasures(records);
    } catch (error) {
      if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return;
      this.context.reportError(error);
    }
  }

  private renderErasures(records: readonly ErasureRecord[]): void {
    this.erasures.hidden = records.length === 0;
    replaceChildren(this.erasures, [
      element('h2', { text: `Erased sessions (${records.length})` }),
      element(
        'ul',
        { className: 'erasure-list' },
        records.map((record) =>
          element('li', { className: 'erasure-record', dataset: { sessionId: record.sessionId } }, [
            element('code', { text: record.sessionId }),
            ` ${describeErasure(record, formatTime)}`,
          ]),
        ),
      ),
    ]);
  }

  /** Verifies the rows not verified at their current position, a few at a time. */
  private verifyVisible(): void {
    this.verifyQueue = this.sessions.filter(
      (session) => verified.get(session.sessionId)?.position !== session.position,
    );
    for (let slot = this.verifying; slot < VERIFY_CONCURRENCY; slot += 1) void this.verifyNext();
  }

  private async verifyNext(): Promise<void> {
    const session = this.verifyQueue.shift();
    if (session === undefined || this.disposed) return;
    this.verifying += 1;
    try {
      const answer = await getJson<unknown>(sessionPath(session.sessionId, '/verify'));
      verified.set(session.sessionId, {
        position: session.position,
        statement: integrityOf(answer, formatTime),
      });
    } catch (error) {
      // Not kept: the next refresh of the list asks again.
      const code = error instanceof ApiError ? error.code : 'unreachable';
      const cell = {
        state: 'broken' as const,
        short: `? ${code}`,
        text: `Verification failed: ${errorMessage(error)}`,
      };
      verified.set(session.sessionId, { position: '', statement: cell });
    } finally {
      this.verifying -= 1;
    }
    this.showIntegrity(session.sessionId);
    await this.verifyNext();
  }

  private showIntegrity(sessionId: string): void {
    const cell = this.body.querySelector<HTMLElement>(
      `tr[data-session-id="${CSS.escape(sessionId)}"] td.col-integrity`,
    );
    const found = verified.get(sessionId);
    if (cell === null || found === undefined) return;
    cell.dataset['state'] = found.statement.state;
    cell.title = found.statement.text;
    cell.textContent = found.statement.short;
  }

  private render(total: number): void {
    const matching = this.text === '' ? '' : ` matching “${this.text}”`;
    const bounded = this.truncated ? ' (the search stopped at its bound: more may match, add words)' : '';
    this.status.textContent = `${formatCount(total)} session${total === 1 ? '' : 's'}${matching}${bounded}`;
    this.more.hidden = this.nextCursor === null && this.nextOffset === null;
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
    for (const session of this.sessions) this.showIntegrity(session.sessionId);
    this.verifyVisible();
  }

  private row(session: SessionSummary & { readonly match?: SearchMatch | null }): HTMLTableRowElement {
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
        session.match != null &&
          element('div', { className: 'search-match', dataset: { entryId: session.match.entryId } }, [
            element('a', {
              className: 'match-link',
              text: 'found: ',
              attributes: {
                href: formatRoute({
                  kind: 'session',
                  sessionId: session.sessionId,
                  tab: 'tree',
                  entryId: session.match.entryId,
                  compactionId: undefined,
                }),
              },
            }),
            session.match.excerpt,
          ]),
      ]),
      element('span', { className: 'muted', text: '…' }),
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
