// Markdown (markdown.ts) as elements: every piece of text goes in as text, never as markup, so a
// summary holding HTML shows it as written. A text longer than the viewer renders is shown as
// it is, in a preformatted block.
import { element } from './dom.js';
import { parseMarkdown, type Block, type Inline } from './markdown.js';

/** Longer texts are shown preformatted instead (the reading is linear, the DOM would not be small). */
export const MAX_MARKDOWN_LENGTH = 200_000;

function inlineNodes(inlines: readonly Inline[]): (Node | string)[] {
  return inlines.map((inline) => {
    switch (inline.kind) {
      case 'text':
        return inline.text;
      case 'code':
        return element('code', { text: inline.text });
      case 'strong':
        return element('strong', {}, inlineNodes(inline.children));
      case 'emphasis':
        return element('em', {}, inlineNodes(inline.children));
      case 'break':
        return element('br');
      default: {
        const unhandled: never = inline;
        throw new Error(`unhandled inline ${JSON.stringify(unhandled)}`);
      }
    }
  });
}

function listElement(block: Extract<Block, { kind: 'list' }>): HTMLElement {
  const top = element(block.ordered ? 'ol' : 'ul');
  if (block.ordered && block.start !== 1) top.setAttribute('start', String(block.start));
  const levels: HTMLElement[] = [top];
  let lastItem: HTMLElement | undefined;
  for (const item of block.items) {
    while (levels.length - 1 > item.depth) levels.pop();
    if (item.depth > levels.length - 1 && lastItem !== undefined) {
      const nested = element(block.ordered ? 'ol' : 'ul');
      lastItem.append(nested);
      levels.push(nested);
    }
    const li = element('li', {}, [
      item.checked !== undefined &&
        element('span', { className: 'checkbox', text: item.checked ? '☑ ' : '☐ ' }),
      ...inlineNodes(item.inlines),
    ]);
    levels[levels.length - 1]?.append(li);
    lastItem = li;
  }
  return top;
}

function blockElement(block: Block): HTMLElement {
  switch (block.kind) {
    case 'heading':
      // Summaries sit inside the page's own headings: their levels start below h3.
      return element(`h${Math.min(6, block.level + 2)}` as 'h3', {}, inlineNodes(block.inlines));
    case 'paragraph':
      return element('p', {}, inlineNodes(block.inlines));
    case 'code':
      return element('pre', { className: 'code-block', dataset: { language: block.language } }, [
        element('code', { text: block.text }),
      ]);
    case 'quote':
      return element('blockquote', {}, inlineNodes(block.inlines));
    case 'list':
      return listElement(block);
    case 'rule':
      return element('hr');
    case 'table':
      return element('div', { className: 'table-scroll' }, [
        element('table', { className: 'markdown-table' }, [
          element('thead', {}, [
            element(
              'tr',
              {},
              block.header.map((cell) => element('th', {}, inlineNodes(cell))),
            ),
          ]),
          element(
            'tbody',
            {},
            block.rows.map((row) =>
              element(
                'tr',
                {},
                row.map((cell) => element('td', {}, inlineNodes(cell))),
              ),
            ),
          ),
        ]),
      ]);
    default: {
      const unhandled: never = block;
      throw new Error(`unhandled block ${JSON.stringify(unhandled)}`);
    }
  }
}

/** A `div.markdown` showing `text` rendered. */
export function markdownElement(text: string, className = ''): HTMLElement {
  const classes = `markdown${className === '' ? '' : ` ${className}`}`;
  if (text.length > MAX_MARKDOWN_LENGTH) return element('pre', { className: `${classes} prose`, text });
  return element('div', { className: classes }, parseMarkdown(text).map(blockElement));
}
