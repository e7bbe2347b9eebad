// One session: its header figures, integrity check and context-size chart, and five tabs (tree,
// timeline, context, before/after a compaction, raw events). Live: the session's events arrive
// through the event stream, resumed from the position the tree was read at, and each burst
// reloads the tree, the timeline and the chart; a new compaction is announced and highlighted.
import { allOrGone, ApiError, errorMessage, getJson, sessionPath } from './api.js';
import { describeErasure, erasureRecordOf } from './erasures.js';
import { EventsPanel } from './events-panel.js';
import { integrityOf } from './integrity.js';
import type {
  AttemptList,
  ContextSizes,
  AuditAttempt,
  SessionContext,
  SessionDetail,
  SessionTree,
} from '@strata/client/browser';
import { ComparePanel } from './compare-panel.js';
import { downloadBar } from './download-bar.js';
import { contextSizeChart } from './context-chart.js';
import { ContextPanel } from './context-panel.js';
import { element, figure, replaceChildren } from './dom.js';
import { EntryCache } from './entry-cache.js';
import { EventFeed, type PublicEventMessage } from './event-feed.js';
import { formatCost, formatCount, formatTime } from './previews.js';
import { formatRoute, sessionTabs, type Route, type SessionTab } from './routes.js';
import { TimelinePanel } from './timeline-panel.js';
import { TreePanel } from './tree-panel.js';
import type { ViewContext } from './view.js';

type SessionRoute = Extract<Route, { kind: 'session' }>;

const RELOAD_DELAY_MS = 150;
const ATTEMPT_PAGE = 500;
const LIVE_TYPES = [
  'entry_appended',
  'session_tree',
  'session_compact',
  'compaction_start',
  'compaction_skipped',
  'compaction_cancelled',
  'compaction_failed',
  'branch_summary_start',
  'branch_summary_skipped',
  'branch_summary_cancelled',
  'branch_summary_failed',
].join(',');

const tabCaptions: Readonly<Record<SessionTab, string>> = {
  tree: 'Tree',
  timeline: 'Compactions',
  context: 'What the model saw',
  compare: 'Before / after',
  events: 'Raw events',
};

/** The title, or "Untitled session": the id is on the line below, once. */
function sessionTitle(detail: SessionDetail): HTMLElement {
  const title = detail.title ?? detail.header.title ?? null;
  return title !== null && title !== ''
    ? element('h1', { text: title })
    : element('h1', { className: 'untitled', text: 'Untitled session' });
}

export class SessionView {
  readonly element: HTMLElement;
  private readonly header: HTMLElement;
  private readonly integrity: HTMLElement;
  private readonly chart = element('div', { className: 'session-chart' });
  private readonly tabs = new Map<SessionTab, HTMLButtonElement>();
  private readonly panels = new Map<SessionTab, HTMLElement>();
  private readonly cache: EntryCache;
  private readonly tree: TreePanel;
  private readonly timeline: TimelinePanel;
  private readonly contextPanel: ContextPanel;
  private readonly compare: ComparePanel;
  private readonly events: EventsPanel;
  private route: SessionRoute;
  private loadedTree: SessionTree | undefined;
  private feed: EventFeed | undefined;
  private reloadTimer: number | undefined;
  private disposed = false;

  constructor(
    private readonly context: ViewContext,
    route: SessionRoute,
  ) {
    this.route = route;
    const { sessionId } = route;
    this.cache = new EntryCache(sessionId, () => this.tree.refreshPreviews());
    this.tree = new TreePanel(this.cache, {
      // A new selection replaces the compaction chosen before, so the before / after tab follows it.
      select: (entryId) => this.navigate({ tab: 'tree', entryId, compactionId: undefined }),
      showContext: (entryId) => this.navigate({ tab: 'context', entryId }),
    });
    this.timeline = new TimelinePanel(this.cache, {
      compare: (compactionId) => this.navigate({ tab: 'compare', compactionId }),
      showInTree: (entryId) => this.navigate({ tab: 'tree', entryId }),
      contextTokens: async (entryId) =>
        (await getJson<SessionContext>(sessionPath(sessionId, '/context'), { leaf: entryId })).tokens,
    });
    this.contextPanel = new ContextPanel(sessionId, context, {
      showInTree: (entryId) => this.navigate({ tab: 'tree', entryId }),
      useCurrentLeaf: () => this.navigate({ tab: 'context', entryId: undefined }),
    });
    this.compare = new ComparePanel(sessionId, context, {
      choose: (compactionId) => this.navigate({ tab: 'compare', compactionId }),
      showInTree: (entryId) => this.navigate({ tab: 'tree', entryId }),
    });
    this.events = new EventsPanel(sessionId, context);
    this.header = element('div', { className: 'session-heading' }, [element('h1', { text: sessionId })]);
    this.integrity = element('div', {
      className: 'integrity',
      attributes: { role: 'status', 'aria-live': 'polite' },
    });
    const contents: Readonly<Record<SessionTab, HTMLElement>> = {
      tree: this.tree.element,
      timeline: this.timeline.element,
      context: this.contextPanel.element,
      compare: this.compare.element,
      events: this.events.element,
    };
    const tabList = element('div', {
      className: 'tabs',
      attributes: { role: 'tablist', 'aria-label': 'Session views' },
    });
    tabList.addEventListener('keydown', (event) => this.onTabKey(event));
    for (const tab of sessionTabs) {
      const button = element('button', {
        className: 'tab',
        text: tabCaptions[tab],
        attributes: { role: 'tab', id: `tab-${tab}`, 'aria-controls': `panel-${tab}` },
        dataset: { tab },
        on: { click: () => this.navigate({ tab }) },
      });
      this.tabs.set(tab, button);
      tabList.append(button);
      this.panels.set(
        tab,
        element(
          'div',
          {
            className: 'tab-panel',
            attributes: { role: 'tabpanel', id: `panel-${tab}`, 'aria-labelledby': `tab-${tab}` },
          },
          [contents[tab]],
        ),
      );
    }
    this.element = element('section', { className: 'session-view', dataset: { sessionId } }, [
      element('nav', { className: 'crumbs' }, [
        element('a', { text: '← All sessions', attributes: { href: '#/' } }),
      ]),
      this.header,
      this.integrity,
      downloadBar(sessionId, context),
      this.chart,
      tabList,
      ...this.panels.values(),
    ]);
    void this.start();
  }

  dispose(): void {
    this.disposed = true;
    this.feed?.close();
    window.clearTimeout(this.reloadTimer);
  }

  /** Follows a new route of the same session. */
  update(route: SessionRoute): void {
    const previous = this.route;
    this.route = route;
    this.showTab(route.tab);
    if (route.tab === 'events') void this.events.show();
    if (this.loadedTree === undefined) return;
    if (route.tab === 'tree' && route.entryId !== previous.entryId) this.tree.select(route.entryId, true);
    if (route.tab === 'context' && (route.entryId !== previous.entryId || previous.tab !== 'context'))
      void this.contextPanel.load(route.entryId);
    if (
      route.tab === 'compare' &&
      (route.compactionId !== previous.compactionId ||
        route.entryId !== previous.entryId ||
        previous.tab !== 'compare')
    )
      void this.compare.load(route.compactionId, route.entryId);
  }

  private navigate(change: Partial<Omit<SessionRoute, 'kind' | 'sessionId'>>): void {
    const next: SessionRoute = { ...this.route, ...change };
    location.hash = formatRoute(next);
  }

  private async start(): Promise<void> {
    this.showTab(this.route.tab);
    if (this.route.tab === 'events') void this.events.show();
    const tree = await this.reload();
    if (tree === undefined || this.disposed) return;
    this.tree.select(this.route.entryId);
    if (this.route.tab === 'context') void this.contextPanel.load(this.route.entryId);
    if (this.route.tab === 'compare') void this.compare.load(this.route.compactionId, this.route.entryId);
    void this.verify();
    this.feed = new EventFeed({
      query: { session: this.route.sessionId, types: LIVE_TYPES },
      lastEventId: tree.position,
      onEvent: (event) => this.onLiveEvent(event),
      onState: (state) => this.context.showFeedState(state),
    }).start();
  }

  private async reload(): Promise<SessionTree | undefined> {
    const { sessionId } = this.route;
    try {
      const [detail, tree, attempts, sizes] = await allOrGone([
        getJson<SessionDetail>(sessionPath(sessionId)),
        getJson<SessionTree>(sessionPath(sessionId, '/tree')),
        this.attempts(),
        getJson<ContextSizes>(sessionPath(sessionId, '/context-sizes')),
      ] as const);
      if (this.disposed) return undefined;
      this.loadedTree = tree;
      this.renderHeader(detail);
      replaceChildren(this.chart, [
        contextSizeChart(sizes, { showInTree: (entryId) => this.navigate({ tab: 'tree', entryId }) }),
      ]);
      this.tree.setTree(tree);
      this.compare.setTree(tree);
      await this.timeline.setData(tree, attempts);
      this.element.dataset['position'] = tree.position;
      return tree;
    } catch (error) {
      if (error instanceof ApiError && error.status === 410) this.showErased(error);
      else this.context.reportError(error, this.integrity);
      return undefined;
    }
  }

  /** An erased session: its record instead of its contents. */
  private showErased(error: ApiError): void {
    const record = erasureRecordOf(error.problem);
    this.element.dataset['erased'] = 'true';
    replaceChildren(this.header, [
      element('h1', { className: 'untitled', text: 'Erased session' }),
      element('p', { className: 'muted mono session-id-line', text: this.route.sessionId }),
    ]);
    replaceChildren(this.integrity, [
      element('p', {
        className: 'erasure-record',
        text:
          record !== undefined
            ? `This session was ${describeErasure(record, formatTime)}. Its events are gone; this record is what remains.`
            : `This session was erased: ${error.message}`,
      }),
    ]);
    for (const panel of this.panels.values()) panel.hidden = true;
    this.element.querySelector('.tabs')?.setAttribute('hidden', '');
    this.element.querySelector('.downloads')?.setAttribute('hidden', '');
    this.chart.hidden = true;
  }

  private async attempts(): Promise<AuditAttempt[]> {
    const all: AuditAttempt[] = [];
    let cursor: string | undefined;
    do {
      const page: AttemptList = await getJson<AttemptList>(sessionPath(this.route.sessionId, '/attempts'), {
        order: 'oldest_first',
        limit: ATTEMPT_PAGE,
        cursor,
      });
      all.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return all;
  }

  private async verify(): Promise<void> {
    replaceChildren(this.integrity, [
      element('span', { className: 'muted', text: 'Checking the hash chain…' }),
    ]);
    try {
      const result = await getJson<unknown>(sessionPath(this.route.sessionId, '/verify'));
      if (this.disposed) return;
      const statement = integrityOf(result, formatTime);
      this.integrity.dataset['ok'] = String(statement.state === 'verified');
      this.integrity.dataset['state'] = statement.state;
      replaceChildren(this.integrity, [
        element('span', {
          className: statement.state === 'broken' ? 'integrity-broken' : 'integrity-ok',
          text: statement.text,
        }),
        element('button', {
          className: 'button',
          text: 'Verify again',
          on: { click: () => void this.verify() },
        }),
      ]);
    } catch (error) {
      replaceChildren(this.integrity, [
        element('span', {
          className: 'integrity-broken',
          text: `Verification failed: ${errorMessage(error)}`,
        }),
      ]);
    }
  }

  private onLiveEvent(event: PublicEventMessage): void {
    if (event.name === 'session_compact') {
      const entry = event.data['compactionEntry'] as { id?: unknown } | null | undefined;
      if (typeof entry?.id === 'string') this.timeline.markFresh(entry.id);
      this.context.toast(`New compaction in ${this.route.sessionId}`);
    }
    window.clearTimeout(this.reloadTimer);
    this.reloadTimer = window.setTimeout(() => {
      this.events.invalidate(this.route.tab === 'events');
      void this.reload().then(() => {
        if (event.name === 'session_compact') void this.verify();
      });
    }, RELOAD_DELAY_MS);
  }

  private renderHeader(detail: SessionDetail): void {
    replaceChildren(this.header, [
      sessionTitle(detail),
      element('p', { className: 'muted mono session-id-line', text: `${detail.sessionId} · ${detail.cwd}` }),
      element('div', { className: 'figures' }, [
        figure('Entries', formatCount(detail.entryCount), 'entries'),
        figure('Messages', formatCount(detail.messageCount), 'messages'),
        figure('Compactions', formatCount(detail.compactionCount), 'compactions'),
        figure('Branch summaries', formatCount(detail.branchSummaryCount), 'branch-summaries'),
        figure('Tokens used', formatCount(detail.usage.totalTokens), 'tokens'),
        figure('Cost', formatCost(detail.usage.cost)),
        figure('Created', formatTime(detail.createdAt)),
        figure('Last activity', formatTime(detail.lastActivityAt)),
        figure('Current leaf', detail.leafId ?? '—', 'leaf'),
      ]),
    ]);
  }

  private showTab(tab: SessionTab): void {
    for (const [name, button] of this.tabs) {
      const selected = name === tab;
      button.setAttribute('aria-selected', String(selected));
      button.tabIndex = selected ? 0 : -1;
      const panel = this.panels.get(name);
      if (panel !== undefined) panel.hidden = !selected;
    }
  }

  private onTabKey(event: KeyboardEvent): void {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const position = sessionTabs.indexOf(this.route.tab);
    const next =
      sessionTabs[
        (position + (event.key === 'ArrowRight' ? 1 : sessionTabs.length - 1)) % sessionTabs.length
      ];
    if (next === undefined) return;
    this.navigate({ tab: next });
    this.tabs.get(next)?.focus();
    event.preventDefault();
  }
}
