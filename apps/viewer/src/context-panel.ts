// "What the model saw": the context built at a chosen entry (the current leaf by default), as
// the engine would send it, with each message inspectable.
import { getJson, sessionPath } from './api.js';
import type { SessionContext } from '@strata/client/browser';
import { ContextList, messageDetail } from './context-list.js';
import { element, replaceChildren } from './dom.js';
import type { ViewContext } from './view.js';

export interface ContextPanelActions {
  showInTree(entryId: string): void;
  useCurrentLeaf(): void;
}

export class ContextPanel {
  readonly element: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly list: ContextList;
  private readonly detail: HTMLElement;
  private request = 0;

  constructor(
    private readonly sessionId: string,
    private readonly context: ViewContext,
    private readonly actions: ContextPanelActions,
  ) {
    this.heading = element('div', { className: 'toolbar' });
    this.detail = element(
      'aside',
      { className: 'detail-panel', attributes: { 'aria-label': 'Selected message' } },
      [element('p', { className: 'muted', text: 'Select a message to see it whole.' })],
    );
    this.list = new ContextList('Context messages', (row) =>
      replaceChildren(
        this.detail,
        messageDetail(row, (entryId) => this.actions.showInTree(entryId)),
      ),
    );
    this.element = element('div', { className: 'context-panel' }, [
      this.heading,
      element('div', { className: 'split' }, [
        element('div', { className: 'list-column' }, [this.list.element]),
        this.detail,
      ]),
    ]);
  }

  /** Shows the context at `leafId` (the current leaf when undefined). */
  async load(leafId: string | undefined): Promise<void> {
    const request = ++this.request;
    replaceChildren(this.heading, [
      element('h2', { text: 'What the model saw at ' }, [
        leafId === undefined ? 'the current leaf' : element('code', { text: leafId }),
      ]),
      leafId !== undefined &&
        element('button', {
          className: 'button',
          text: 'Use the current leaf',
          on: { click: () => this.actions.useCurrentLeaf() },
        }),
    ]);
    this.list.clear('Loading…');
    try {
      const context = await getJson<SessionContext>(sessionPath(this.sessionId, '/context'), {
        leaf: leafId,
      });
      if (request !== this.request) return;
      this.list.show(context);
    } catch (error) {
      if (request === this.request) this.context.reportError(error);
      this.list.clear('The context could not be loaded.');
    }
  }

  focus(): void {
    this.list.focus();
  }
}
