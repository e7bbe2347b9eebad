// One context ("what the model saw") as a windowed list of its messages: position, role, a
// one-line preview and the message's token count. A mark per message can tell, in a comparison,
// which messages a compaction kept and which it summarised away.
import type { ContextMessage, SessionContext } from '@strata/client/browser';
import { element, figure, replaceChildren } from './dom.js';
import { markdownElement } from './markdown-view.js';
import { formatCount, messagePreview } from './previews.js';
import { VirtualList } from './virtual-list.js';

export const CONTEXT_ROW_HEIGHT = 30;

export type MessageMark = 'kept' | 'summarised' | 'new';

export interface ContextRow {
  readonly message: ContextMessage;
  readonly position: number;
  readonly entryId: string | null;
  readonly tokens: number | undefined;
  readonly mark: MessageMark | undefined;
}

export class ContextList {
  readonly element: HTMLElement;
  private readonly figures: HTMLElement;
  private readonly list: VirtualList<ContextRow>;
  private selected: number | undefined;

  constructor(
    label: string,
    private readonly onSelect: (row: ContextRow) => void,
  ) {
    this.figures = element('div', { className: 'figures' });
    this.list = new VirtualList<ContextRow>({
      rowHeight: CONTEXT_ROW_HEIGHT,
      role: 'listbox',
      label,
      className: 'context-list',
      render: (row, target) => this.renderRow(row, target),
      onSelect: (row) => {
        this.selected = row.position;
        this.list.refresh();
        this.onSelect(row);
      },
    });
    this.element = element('div', { className: 'context-view' }, [this.figures, this.list.element]);
  }

  show(
    context: SessionContext,
    markOf: (entryId: string | null) => MessageMark | undefined = () => undefined,
  ): void {
    this.selected = undefined;
    const rows = context.messages.map((message, position) => {
      const entryId = context.entryIds[position] ?? null;
      return { message, position, entryId, tokens: context.messageTokens[position], mark: markOf(entryId) };
    });
    replaceChildren(this.figures, [
      figure('Messages', formatCount(rows.length), 'messages'),
      figure(`Tokens (${context.tokenCounter})`, formatCount(context.tokens), 'tokens'),
      figure('Thinking', context.thinkingLevel),
      figure('Compaction in effect', context.compactionId ?? 'none', 'compaction'),
    ]);
    this.element.dataset['leafId'] = context.leafId ?? '';
    this.list.setRows(rows, 0);
  }

  clear(message: string): void {
    replaceChildren(this.figures, [element('p', { className: 'muted', text: message })]);
    this.list.setRows([], 0);
  }

  focus(): void {
    this.list.focus();
  }

  private renderRow(row: ContextRow, target: HTMLElement): void {
    target.classList.add('context-row', `role-${row.message.role}`);
    if (row.mark !== undefined) target.classList.add(`mark-${row.mark}`);
    target.classList.toggle('is-selected', row.position === this.selected);
    target.setAttribute('aria-selected', String(row.position === this.selected));
    if (row.entryId !== null) target.dataset['entryId'] = row.entryId;
    replaceChildren(target, [
      element('span', { className: 'row-number', text: String(row.position + 1) }),
      element('span', { className: 'role-badge', text: row.message.role }),
      element('span', { className: 'row-text', text: messagePreview(row.message) }),
      row.mark !== undefined && element('span', { className: 'mark-chip', text: row.mark }),
      element('span', { className: 'row-tokens', text: formatCount(row.tokens) }),
    ]);
  }
}

/** The JSON of a selected message with a way back to its entry. */
export function messageDetail(row: ContextRow, showInTree: (entryId: string) => void): HTMLElement[] {
  const parts: (HTMLElement | false)[] = [
    element('h2', { className: 'detail-title', text: `Message ${row.position + 1} · ${row.message.role}` }),
    element('p', { className: 'muted' }, [
      `${formatCount(row.tokens)} tokens · entry `,
      row.entryId === null ? 'none (built for the context)' : element('code', { text: row.entryId }),
    ]),
    row.entryId !== null &&
      element('div', { className: 'toolbar' }, [
        element('button', {
          className: 'button',
          text: 'Show entry in tree',
          on: { click: () => showInTree(row.entryId ?? '') },
        }),
      ]),
    typeof row.message['summary'] === 'string' &&
      element('section', { className: 'rendered-summary', attributes: { 'aria-label': 'Summary' } }, [
        element('h3', { text: 'Summary' }),
        markdownElement(row.message['summary']),
      ]),
    element('pre', { className: 'json', text: JSON.stringify(row.message, null, 2) }),
  ];
  return parts.filter((item): item is HTMLElement => item !== false);
}
