// The raw events of a session, as the store holds them (`GET /sessions/{id}/events`): revision,
// global position, type, actor, time and hash, a page at a time, oldest first. Each row says
// whether its previous hash is the hash of the row before it (the chain as read here; the
// engine's verification is the check that counts). At most MAX_SHOWN_EVENTS rows are shown; the
// events file download has them all.
import { getJson, sessionPath } from './api.js';
import type { RawEvent, RawEventsPage } from '@strata/client/browser';
import { element, replaceChildren } from './dom.js';
import { formatTime } from './previews.js';
import type { ViewContext } from './view.js';

export const EVENT_PAGE_SIZE = 200;
export const MAX_SHOWN_EVENTS = 5_000;

export class EventsPanel {
  readonly element: HTMLElement;
  private readonly body: HTMLTableSectionElement;
  private readonly status: HTMLElement;
  private readonly more: HTMLButtonElement;
  private events: RawEvent[] = [];
  private next: string | null = null;
  private loaded = false;
  private request = 0;

  constructor(
    private readonly sessionId: string,
    private readonly context: ViewContext,
  ) {
    this.status = element('p', { className: 'muted', attributes: { role: 'status' } });
    this.body = element('tbody');
    this.more = element('button', {
      className: 'button',
      text: 'Load more events',
      dataset: { action: 'more-events' },
      on: { click: () => void this.loadPage() },
    });
    this.more.hidden = true;
    const headings = ['Revision', 'Position', 'Type', 'Actor', 'Recorded', 'Hash', 'Chain'];
    this.element = element('div', { className: 'events-panel' }, [
      this.status,
      element('div', { className: 'table-scroll' }, [
        element('table', { className: 'events-table' }, [
          element('thead', {}, [
            element(
              'tr',
              {},
              headings.map((heading) => element('th', { text: heading, attributes: { scope: 'col' } })),
            ),
          ]),
          this.body,
        ]),
      ]),
      this.more,
    ]);
  }

  /** Loads the first page the first time the tab is shown. */
  async show(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    await this.loadPage();
  }

  /** Forgets what was read (new events arrived); the next `show` reads again. */
  invalidate(visible: boolean): void {
    this.loaded = false;
    this.events = [];
    this.next = null;
    this.request += 1;
    if (visible) void this.show();
  }

  private async loadPage(): Promise<void> {
    const request = ++this.request;
    const after = this.events.at(-1)?.revision;
    this.status.textContent = 'Loading events…';
    try {
      const page = await getJson<RawEventsPage>(sessionPath(this.sessionId, '/events'), {
        limit: EVENT_PAGE_SIZE,
        after,
      });
      if (request !== this.request) return;
      this.events.push(...page.events);
      this.next = page.next;
      this.render();
    } catch (error) {
      if (request === this.request) this.context.reportError(error, this.status);
    }
  }

  private render(): void {
    const full = this.events.length >= MAX_SHOWN_EVENTS;
    this.more.hidden = this.next === null || full;
    this.status.textContent =
      `${this.events.length.toLocaleString('en-US')} event${this.events.length === 1 ? '' : 's'}` +
      (this.next === null
        ? ' (the whole stream)'
        : full
          ? `; the first ${MAX_SHOWN_EVENTS.toLocaleString('en-US')} are shown, the events file has them all`
          : ', more to load');
    replaceChildren(
      this.body,
      this.events.map((event, index) => this.row(event, this.events[index - 1])),
    );
  }

  private row(event: RawEvent, previous: RawEvent | undefined): HTMLTableRowElement {
    const chained =
      event.previousHash === null
        ? undefined
        : previous === undefined
          ? true
          : previous.hash === event.previousHash;
    const actor =
      event.actor === null ? '—' : event.onBehalfOf ? `${event.actor} for ${event.onBehalfOf}` : event.actor;
    return element(
      'tr',
      { className: 'event-row', dataset: { revision: event.revision, type: event.type } },
      [
        element('td', { className: 'col-number', text: event.revision }),
        element('td', { className: 'col-number muted', text: event.position }),
        element('td', { className: 'mono', text: event.type }),
        element('td', { text: actor }),
        element('td', { className: 'col-time', text: formatTime(event.time) }),
        element('td', {
          className: 'mono hash',
          text: event.hash === null ? '—' : `${event.hash.slice(0, 16)}…`,
          attributes: { title: event.hash ?? 'no hash recorded' },
        }),
        element('td', {
          className: chained === false ? 'chain-broken' : 'chain-ok',
          text: chained === undefined ? '—' : chained ? '✓' : '✗ previous hash differs',
          dataset: { chain: chained === undefined ? 'none' : String(chained) },
          attributes: { title: `previous hash ${event.previousHash ?? '—'}` },
        }),
      ],
    );
  }
}
