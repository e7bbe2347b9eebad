// The session tree as a windowed tree (tree-rows.ts) beside the selected entry's JSON. Keys:
// arrows move, Right unfolds a branch (or steps into it), Left folds it (or goes to the branch
// head above), Enter selects. Previews of entries load page by page as rows come into view.
import type { SessionEntry, SessionTree } from '@strata/client/browser';
import { element, replaceChildren } from './dom.js';
import type { EntryCache } from './entry-cache.js';
import { markdownElement } from './markdown-view.js';
import { entryPreview, formatTime, messageRoleOf } from './previews.js';
import {
  branchHeadAbove,
  indexTree,
  revealing,
  visibleRows,
  type FoldChoices,
  type TreeIndex,
  type TreeRow,
} from './tree-rows.js';
import { VirtualList } from './virtual-list.js';

export const TREE_ROW_HEIGHT = 28;
const MAX_INDENT = 24;

export interface TreePanelActions {
  select(entryId: string): void;
  showContext(entryId: string): void;
}

export class TreePanel {
  readonly element: HTMLElement;
  private readonly list: VirtualList<TreeRow>;
  private readonly detail: HTMLElement;
  private readonly summary: HTMLElement;
  private index: TreeIndex | undefined;
  private rows: TreeRow[] = [];
  private rowById = new Map<string, number>();
  private choices: FoldChoices = new Map();
  private selectedId: string | undefined;
  private detailRequest = 0;

  constructor(
    private readonly cache: EntryCache,
    private readonly actions: TreePanelActions,
  ) {
    this.list = new VirtualList<TreeRow>({
      rowHeight: TREE_ROW_HEIGHT,
      role: 'tree',
      label: 'Session tree',
      className: 'tree-list',
      render: (row, target) => this.renderRow(row, target),
      onSelect: (row) => this.actions.select(row.node.id),
      onKey: (event, row) => this.onKey(event, row),
      onRange: (first, last) => this.loadPreviews(first, last),
    });
    this.summary = element('span', { className: 'muted', attributes: { role: 'status' } });
    this.detail = element(
      'aside',
      { className: 'detail-panel entry-detail', attributes: { 'aria-label': 'Selected entry' } },
      [element('p', { className: 'muted', text: 'Select an entry (Enter or click) to inspect it.' })],
    );
    const toolbar = element('div', { className: 'toolbar' }, [
      element('button', {
        className: 'button',
        text: 'Unfold all',
        on: { click: () => this.foldAll(false) },
      }),
      element('button', {
        className: 'button',
        text: 'Fold side branches',
        on: { click: () => this.resetFolds() },
      }),
      element('button', {
        className: 'button',
        text: 'Go to current leaf',
        on: { click: () => this.goToLeaf() },
      }),
      this.summary,
    ]);
    this.element = element('div', { className: 'tree-panel' }, [
      element('div', { className: 'list-column' }, [toolbar, this.list.element]),
      this.detail,
    ]);
  }

  setTree(tree: SessionTree): void {
    const first = this.index === undefined;
    this.index = indexTree(tree);
    this.relayout(this.activeId());
    if (first) this.list.setActive(this.list.activeIndex, false);
    if (this.selectedId !== undefined) void this.showDetail(this.selectedId);
  }

  /** Selects an entry: unfolds the branches above it, moves to it and shows its JSON. */
  select(entryId: string | undefined, focus = false): void {
    this.selectedId = entryId;
    if (entryId === undefined || this.index === undefined) return;
    if (!this.rowById.has(entryId)) {
      this.choices = revealing(this.index, this.choices, entryId);
      this.relayout(entryId);
    }
    const rowIndex = this.rowById.get(entryId);
    if (rowIndex !== undefined) this.list.setActive(rowIndex, focus);
    this.list.refresh();
    void this.showDetail(entryId);
  }

  focus(): void {
    this.list.focus();
  }

  refreshPreviews(): void {
    this.list.refresh();
  }

  private activeId(): string | undefined {
    return (
      this.rows[this.list.activeIndex]?.node.id ?? this.selectedId ?? this.index?.tree.leafId ?? undefined
    );
  }

  private relayout(activeId: string | undefined): void {
    if (this.index === undefined) return;
    this.rows = visibleRows(this.index, this.choices);
    this.rowById = new Map(this.rows.map((row, position) => [row.node.id, position]));
    const active = activeId !== undefined ? this.rowById.get(activeId) : undefined;
    this.list.setRows(this.rows, active ?? 0);
    const total = this.index.tree.nodes.length;
    this.summary.textContent = `${total.toLocaleString('en-US')} entries, ${this.rows.length.toLocaleString('en-US')} unfolded`;
  }

  private setFold(row: TreeRow, folded: boolean): void {
    if (!row.foldable || row.folded === folded) return;
    const next = new Map(this.choices);
    next.set(row.node.id, folded);
    this.choices = next;
    this.relayout(row.node.id);
  }

  private foldAll(folded: boolean): void {
    if (this.index === undefined) return;
    const next = new Map<string, boolean>();
    for (const node of this.index.tree.nodes) next.set(node.id, folded);
    this.choices = next;
    this.relayout(this.activeId());
  }

  private resetFolds(): void {
    this.choices = new Map();
    this.relayout(this.activeId());
  }

  private goToLeaf(): void {
    const leafId = this.index?.tree.leafId;
    if (leafId !== null && leafId !== undefined) this.actions.select(leafId);
  }

  private onKey(event: KeyboardEvent, row: TreeRow): boolean {
    if (this.index === undefined) return false;
    if (event.key === 'ArrowRight') {
      if (row.foldable && row.folded) this.setFold(row, false);
      else this.list.setActive(this.list.activeIndex + 1, true);
      return true;
    }
    if (event.key === 'ArrowLeft') {
      if (row.foldable && !row.folded) {
        this.setFold(row, true);
        return true;
      }
      const head = branchHeadAbove(this.index, row.node.id);
      const headRow = head !== undefined ? this.rowById.get(head) : undefined;
      if (headRow !== undefined) this.list.setActive(headRow, true);
      return true;
    }
    return false;
  }

  private loadPreviews(first: number, last: number): void {
    const indexes: number[] = [];
    for (let position = first; position <= last; position += 1) {
      const row = this.rows[position];
      if (row !== undefined && this.cache.get(row.index) === undefined) indexes.push(row.index);
    }
    if (indexes.length > 0) void this.cache.ensure(indexes).catch(() => undefined);
  }

  private renderRow(row: TreeRow, target: HTMLElement): void {
    const { node } = row;
    target.classList.add('tree-row');
    target.classList.toggle('on-path', row.onCurrentPath);
    target.classList.toggle('is-leaf', row.isCurrentLeaf);
    target.classList.toggle('is-selected', node.id === this.selectedId);
    target.dataset['entryId'] = node.id;
    target.dataset['type'] = node.type;
    target.setAttribute('aria-level', String(row.depth + 1));
    target.setAttribute('aria-selected', String(node.id === this.selectedId));
    if (row.foldable) target.setAttribute('aria-expanded', String(!row.folded));
    else target.removeAttribute('aria-expanded');
    target.style.setProperty('--depth', String(Math.min(row.depth, MAX_INDENT)));
    const toggle = row.foldable
      ? element('span', {
          className: 'fold-toggle',
          text: row.folded ? '▸' : '▾',
          attributes: { 'aria-hidden': 'true', title: row.folded ? 'Unfold branch' : 'Fold branch' },
          on: {
            click: (event) => {
              event.stopPropagation();
              this.setFold(row, !row.folded);
            },
          },
        })
      : element('span', { className: 'fold-spacer', text: row.isBranchPoint ? '◆' : '' });
    const entry: SessionEntry | undefined = this.cache.get(row.index);
    const role = entry !== undefined ? messageRoleOf(entry) : undefined;
    replaceChildren(target, [
      toggle,
      element('span', {
        className: `type-badge type-${node.type}${role !== undefined ? ` role-${role}` : ''}`,
        text: role ?? node.type.replaceAll('_', ' '),
      }),
      element('span', {
        className: 'row-text',
        text: entry !== undefined ? entryPreview(entry, false) : node.id,
      }),
      node.label !== null && element('span', { className: 'label-chip', text: node.label }),
      row.folded &&
        element('span', {
          className: 'hidden-count',
          text: `+${row.descendantCount.toLocaleString('en-US')}`,
        }),
      row.isCurrentLeaf && element('span', { className: 'leaf-chip', text: 'leaf' }),
      // Date and time: a session may run across midnight (and its entries may be days apart).
      element('time', {
        className: 'row-time',
        text: formatTime(node.timestamp),
        attributes: { datetime: node.timestamp },
      }),
    ]);
  }

  private async showDetail(entryId: string): Promise<void> {
    const found = this.index?.byId.get(entryId);
    if (found === undefined) return;
    const request = ++this.detailRequest;
    const entry = await this.cache.entry(found.index).catch(() => undefined);
    if (request !== this.detailRequest) return;
    const onPath = this.index?.currentPath.has(entryId) ?? false;
    replaceChildren(this.detail, [
      element('h2', { className: 'detail-title' }, [
        element('span', { text: `${found.node.type.replaceAll('_', ' ')} ` }),
        element('code', { text: entryId }),
      ]),
      element('p', { className: 'muted' }, [
        `${formatTime(found.node.timestamp)} · ${found.node.childIds.length} child${found.node.childIds.length === 1 ? '' : 'ren'}`,
        onPath ? ' · on the current path' : ' · off the current path',
        found.node.label !== null ? ` · label “${found.node.label}”` : '',
      ]),
      element('div', { className: 'toolbar' }, [
        element('button', {
          className: 'button',
          text: 'What the model saw here',
          dataset: { action: 'context-at-entry' },
          on: { click: () => this.actions.showContext(entryId) },
        }),
      ]),
      typeof entry?.['summary'] === 'string' &&
        element('section', { className: 'rendered-summary', attributes: { 'aria-label': 'Summary' } }, [
          element('h3', { text: 'Summary' }),
          markdownElement(entry['summary']),
        ]),
      element('pre', {
        className: 'json',
        text: entry === undefined ? 'Could not load the entry.' : JSON.stringify(entry, null, 2),
      }),
    ]);
  }
}
