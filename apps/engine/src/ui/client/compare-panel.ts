// Before and after a compaction, side by side: the context at the entry the compaction followed
// and the context at the compaction entry itself. Messages of the first that are still in the
// second are marked kept, the others summarised; in the second, what is not in the first is new
// (the summary itself).
import { getJson, sessionPath } from './api.js';
import type { SessionContext, SessionTree } from './api-types.js';
import { ContextList, messageDetail } from './context-list.js';
import { element, figure, replaceChildren } from './dom.js';
import { formatCount } from './previews.js';
import type { ViewContext } from './view.js';

export interface ComparePanelActions {
  choose(compactionId: string): void;
  showInTree(entryId: string): void;
}

export class ComparePanel {
  readonly element: HTMLElement;
  private readonly picker: HTMLSelectElement;
  private readonly figures: HTMLElement;
  private readonly before: ContextList;
  private readonly after: ContextList;
  private readonly detail: HTMLElement;
  private request = 0;
  private tree: SessionTree | undefined;

  constructor(
    private readonly sessionId: string,
    private readonly context: ViewContext,
    private readonly actions: ComparePanelActions,
  ) {
    this.picker = element('select', {
      className: 'select',
      attributes: { 'aria-label': 'Compaction to compare' },
      on: { change: () => this.actions.choose(this.picker.value) },
    });
    this.figures = element('div', { className: 'figures compare-figures', attributes: { role: 'status' } });
    this.detail = element('div', { className: 'detail-panel compare-detail' }, [
      element('p', { className: 'muted', text: 'Select a message on either side to see it whole.' }),
    ]);
    const showDetail = (side: string) => (row: Parameters<typeof messageDetail>[0]) =>
      replaceChildren(this.detail, [
        element('p', { className: 'side-caption', text: side }),
        ...messageDetail(row, (entryId) => this.actions.showInTree(entryId)),
      ]);
    this.before = new ContextList('Context before the compaction', showDetail('Before'));
    this.after = new ContextList('Context after the compaction', showDetail('After'));
    this.element = element('div', { className: 'compare-panel' }, [
      element('div', { className: 'toolbar' }, [element('label', { text: 'Compaction ' }, [this.picker])]),
      this.figures,
      element('div', { className: 'compare-columns' }, [
        element('section', { className: 'compare-side', dataset: { side: 'before' } }, [
          element('h2', { text: 'Before' }),
          this.before.element,
        ]),
        element('section', { className: 'compare-side', dataset: { side: 'after' } }, [
          element('h2', { text: 'After' }),
          this.after.element,
        ]),
      ]),
      this.detail,
    ]);
  }

  setTree(tree: SessionTree): void {
    this.tree = tree;
    const compactions = tree.nodes.filter((node) => node.type === 'compaction').reverse();
    const chosen = this.picker.value;
    replaceChildren(
      this.picker,
      compactions.length === 0
        ? [element('option', { text: 'No compaction in this session', attributes: { value: '' } })]
        : compactions.map((node) =>
            element('option', { text: `${node.timestamp} · ${node.id}`, attributes: { value: node.id } }),
          ),
    );
    if (chosen !== '') this.picker.value = chosen;
  }

  /** Compares around `compactionId`, or the latest compaction when undefined. */
  async load(compactionId: string | undefined): Promise<void> {
    const nodes = this.tree?.nodes ?? [];
    const node =
      compactionId !== undefined
        ? nodes.find((candidate) => candidate.id === compactionId)
        : nodes.findLast((candidate) => candidate.type === 'compaction');
    const request = ++this.request;
    if (node === undefined || node.type !== 'compaction' || node.parentId === null) {
      this.before.clear('Choose a compaction.');
      this.after.clear('');
      replaceChildren(this.figures, []);
      return;
    }
    this.picker.value = node.id;
    this.element.dataset['compactionId'] = node.id;
    this.before.clear('Loading…');
    this.after.clear('Loading…');
    try {
      const path = sessionPath(this.sessionId, '/context');
      const [before, after] = await Promise.all([
        getJson<SessionContext>(path, { leaf: node.parentId }),
        getJson<SessionContext>(path, { leaf: node.id }),
      ]);
      if (request !== this.request) return;
      const beforeIds = new Set(before.entryIds);
      const afterIds = new Set(after.entryIds);
      this.before.show(before, (entryId) =>
        entryId !== null && afterIds.has(entryId) ? 'kept' : 'summarised',
      );
      this.after.show(after, (entryId) => (entryId !== null && beforeIds.has(entryId) ? 'kept' : 'new'));
      const kept = before.entryIds.filter((entryId) => entryId !== null && afterIds.has(entryId)).length;
      replaceChildren(this.figures, [
        figure('Tokens before', formatCount(before.tokens), 'compare-tokens-before'),
        figure('Tokens after', formatCount(after.tokens), 'compare-tokens-after'),
        figure('Messages before', formatCount(before.messages.length), 'compare-messages-before'),
        figure('Messages after', formatCount(after.messages.length), 'compare-messages-after'),
        figure('Kept', formatCount(kept), 'compare-kept'),
        figure('Summarised away', formatCount(before.messages.length - kept), 'compare-summarised'),
      ]);
    } catch (error) {
      if (request === this.request) this.context.reportError(error);
    }
  }
}
