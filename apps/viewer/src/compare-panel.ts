// Before and after a compaction, side by side: the context at the entry the compaction followed
// and the context at the compaction entry itself. Messages of the first that are still in the
// second are marked kept, the others summarised; in the second, what is not in the first is new
// (the summary itself).
import { getJson, sessionPath } from './api.js';
import type { SessionContext, SessionTree, TreeNode } from '@strata/client/browser';
import { ContextList, messageDetail } from './context-list.js';
import { element, figure, replaceChildren } from './dom.js';
import { formatCount } from './previews.js';
import type { ViewContext } from './view.js';

export interface ComparePanelActions {
  choose(compactionId: string): void;
  showInTree(entryId: string): void;
}

/** The compaction node the before / after tab shows (see `ComparePanel.load`). */
export function compactionToCompare(
  tree: SessionTree | undefined,
  compactionId: string | undefined,
  entryId: string | undefined,
): TreeNode | undefined {
  const nodes = tree?.nodes ?? [];
  if (compactionId !== undefined) return nodes.find((candidate) => candidate.id === compactionId);
  if (entryId !== undefined) {
    const byId = new Map(nodes.map((candidate) => [candidate.id, candidate]));
    const seen = new Set<string>();
    let cursor = byId.get(entryId);
    while (cursor !== undefined && !seen.has(cursor.id)) {
      if (cursor.type === 'compaction') return cursor;
      seen.add(cursor.id);
      cursor = cursor.parentId === null ? undefined : byId.get(cursor.parentId);
    }
  }
  return nodes.findLast((candidate) => candidate.type === 'compaction');
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

  /**
   * Compares around the compaction chosen: `compactionId` (the picker), else the selected entry
   * when it is a compaction, else the compaction in effect at the selected entry (the nearest on
   * its path), else the latest compaction of the session.
   */
  async load(compactionId: string | undefined, entryId?: string): Promise<void> {
    const node = compactionToCompare(this.tree, compactionId, entryId);
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
      const estimated = (caption: string, tokens: number, name: string, counter: string): HTMLElement => {
        const shown = figure(`${caption} (${counter} estimate)`, formatCount(tokens), name);
        shown.dataset['source'] = 'estimate';
        return shown;
      };
      replaceChildren(this.figures, [
        estimated('Tokens before', before.tokens, 'compare-tokens-before', before.tokenCounter),
        estimated('Tokens after', after.tokens, 'compare-tokens-after', after.tokenCounter),
        figure('Messages before', formatCount(before.messages.length), 'compare-messages-before'),
        figure('Messages after', formatCount(after.messages.length), 'compare-messages-after'),
        figure('Kept', formatCount(kept), 'compare-kept'),
        figure('Summarised away', formatCount(before.messages.length - kept), 'compare-summarised'),
        element('p', {
          className: 'muted figure-note',
          text:
            `Both sides are counted here with ${before.tokenCounter} from the contexts as the engine builds them; ` +
            'the timeline’s “tokens before” is the figure the compaction recorded (usage-based), so the two may differ.',
        }),
      ]);
    } catch (error) {
      if (request === this.request) this.context.reportError(error);
    }
  }
}
