// A small Markdown reader for summaries: headings, bullet and numbered lists, fenced and indented
// code blocks, block quotes, paragraphs, and inline code spans, bold, italics and links (shown as
// their text). It yields plain data; markdown-view.ts turns it into elements through textContent,
// so no HTML in the text is ever interpreted. Pure, linear in the text, no recursion on input.
// Written here rather than taken from a Markdown library on purpose: those produce an HTML string
// the page would have to parse (innerHTML) behind a sanitiser it must trust; this one's output
// never becomes markup, so a summary written by a model or an attacker stays text.

export type Inline =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'code'; readonly text: string }
  | { readonly kind: 'strong'; readonly children: readonly Inline[] }
  | { readonly kind: 'emphasis'; readonly children: readonly Inline[] }
  | { readonly kind: 'break' };

export type Block =
  | { readonly kind: 'heading'; readonly level: 1 | 2 | 3 | 4 | 5 | 6; readonly inlines: readonly Inline[] }
  | { readonly kind: 'paragraph'; readonly inlines: readonly Inline[] }
  | { readonly kind: 'code'; readonly language: string; readonly text: string }
  | { readonly kind: 'quote'; readonly inlines: readonly Inline[] }
  | {
      readonly kind: 'list';
      readonly ordered: boolean;
      readonly start: number;
      readonly items: readonly ListItem[];
    }
  | { readonly kind: 'rule' }
  | {
      readonly kind: 'table';
      readonly header: readonly (readonly Inline[])[];
      readonly rows: readonly (readonly (readonly Inline[])[])[];
    };

export interface ListItem {
  /** 0 for a top-level item, 1 for one indented below it, and so on (at most 5). */
  readonly depth: number;
  readonly inlines: readonly Inline[];
  /** `- [ ]` / `- [x]` items. */
  readonly checked?: boolean;
}

const MAX_LIST_DEPTH = 5;
/** Emphasis nests at most this deep; deeper markers stay text (keeps the reading linear). */
const MAX_NESTING = 8;
const headingPattern = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const fencePattern = /^[ ]{0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)/;
const listPattern = /^([ \t]*)([-*+]|(\d{1,9})[.)])[ \t]+(.*)$/;
const rulePattern = /^[ ]{0,3}([-*_])([ \t]*\1){2,}[ \t]*$/;
const checkboxPattern = /^\[([ xX])\][ \t]+/;
const tableRowPattern = /^[ ]{0,3}\|.*\|[ \t]*$/;
const tableSeparatorPattern = /^[ ]{0,3}\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$/;
const MAX_TABLE_COLUMNS = 32;

/** The cells of a `| a | b |` line (a `\|` stays in its cell). */
function tableCells(line: string): Inline[][] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const cells: string[] = [];
  let cell = '';
  for (let index = 0; index < inner.length; index += 1) {
    const character = inner[index] ?? '';
    if (character === '\\' && inner[index + 1] === '|') {
      cell += '|';
      index += 1;
    } else if (character === '|') {
      cells.push(cell);
      cell = '';
    } else cell += character;
  }
  cells.push(cell);
  return cells.slice(0, MAX_TABLE_COLUMNS).map((text) => parseInlines(text.trim()));
}

/** Lines of `text`; `\r\n` and lone `\r` count as line ends. */
function linesOf(text: string): string[] {
  return text.replace(/\r\n?/g, '\n').split('\n');
}

function indentWidth(whitespace: string): number {
  let width = 0;
  for (const character of whitespace) width += character === '\t' ? 4 : 1;
  return width;
}

/** Reads the blocks of a Markdown text. */
export function parseMarkdown(text: string): Block[] {
  const lines = linesOf(text);
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const endParagraph = (): void => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', inlines: parseInlines(paragraph.join('\n')) });
    paragraph = [];
  };
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    const fence = fencePattern.exec(line);
    if (fence !== null) {
      endParagraph();
      const marker = fence[1] ?? '```';
      const body: string[] = [];
      index += 1;
      while (index < lines.length && !(lines[index] ?? '').trimStart().startsWith(marker)) {
        body.push(lines[index] ?? '');
        index += 1;
      }
      index += 1;
      blocks.push({ kind: 'code', language: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    if (line.trim() === '') {
      endParagraph();
      index += 1;
      continue;
    }
    if (paragraph.length === 0 && /^( {4}|\t)/.test(line)) {
      const body: string[] = [];
      while (
        index < lines.length &&
        (/^( {4}|\t)/.test(lines[index] ?? '') || (lines[index] ?? '').trim() === '')
      ) {
        body.push((lines[index] ?? '').replace(/^( {4}|\t)/, ''));
        index += 1;
      }
      while (body.length > 0 && (body[body.length - 1] ?? '').trim() === '') body.pop();
      blocks.push({ kind: 'code', language: '', text: body.join('\n') });
      continue;
    }
    if (tableRowPattern.test(line) && tableSeparatorPattern.test(lines[index + 1] ?? '')) {
      endParagraph();
      const header = tableCells(line);
      const rows: Inline[][][] = [];
      index += 2;
      while (index < lines.length && tableRowPattern.test(lines[index] ?? '')) {
        rows.push(tableCells(lines[index] ?? ''));
        index += 1;
      }
      blocks.push({ kind: 'table', header, rows });
      continue;
    }
    const heading = headingPattern.exec(line);
    if (heading !== null) {
      endParagraph();
      const level = (heading[1] ?? '#').length as 1 | 2 | 3 | 4 | 5 | 6;
      blocks.push({ kind: 'heading', level, inlines: parseInlines(heading[2] ?? '') });
      index += 1;
      continue;
    }
    if (rulePattern.test(line)) {
      endParagraph();
      blocks.push({ kind: 'rule' });
      index += 1;
      continue;
    }
    if (/^[ ]{0,3}>/.test(line)) {
      endParagraph();
      const body: string[] = [];
      while (index < lines.length && /^[ ]{0,3}>/.test(lines[index] ?? '')) {
        body.push((lines[index] ?? '').replace(/^[ ]{0,3}> ?/, ''));
        index += 1;
      }
      blocks.push({ kind: 'quote', inlines: parseInlines(body.join('\n')) });
      continue;
    }
    const item = listPattern.exec(line);
    if (item !== null) {
      endParagraph();
      const ordered = item[3] !== undefined;
      const start = ordered ? Number(item[3]) : 1;
      const items: ListItem[] = [];
      const baseIndent = indentWidth(item[1] ?? '');
      const indents: number[] = [baseIndent];
      let current: { depth: number; text: string[]; checked?: boolean } | undefined;
      const endItem = (): void => {
        if (current === undefined) return;
        items.push({
          depth: current.depth,
          inlines: parseInlines(current.text.join('\n')),
          ...(current.checked !== undefined ? { checked: current.checked } : {}),
        });
        current = undefined;
      };
      while (index < lines.length) {
        const next = lines[index] ?? '';
        const nextItem = listPattern.exec(next);
        if (nextItem !== null) {
          const indent = indentWidth(nextItem[1] ?? '');
          if (indent < baseIndent) break;
          endItem();
          while (indents.length > 1 && indent < (indents[indents.length - 1] ?? 0)) indents.pop();
          if (indent > (indents[indents.length - 1] ?? 0) && indents.length <= MAX_LIST_DEPTH)
            indents.push(indent);
          let body = nextItem[4] ?? '';
          const box = checkboxPattern.exec(body);
          let checked: boolean | undefined;
          if (box !== null) {
            checked = box[1] !== ' ';
            body = body.slice(box[0].length);
          }
          current = {
            depth: indents.length - 1,
            text: [body],
            ...(checked !== undefined ? { checked } : {}),
          };
          index += 1;
          continue;
        }
        if (next.trim() === '') {
          const following = lines[index + 1] ?? '';
          if (
            listPattern.test(following) &&
            indentWidth(/^[ \t]*/.exec(following)?.[0] ?? '') >= baseIndent
          ) {
            index += 1;
            continue;
          }
          break;
        }
        if (current !== undefined && /^[ \t]+\S/.test(next)) {
          current.text.push(next.trim());
          index += 1;
          continue;
        }
        if (current !== undefined && !headingPattern.test(next) && !fencePattern.test(next)) {
          current.text.push(next.trim());
          index += 1;
          continue;
        }
        break;
      }
      endItem();
      blocks.push({ kind: 'list', ordered, start, items });
      continue;
    }
    paragraph.push(line);
    index += 1;
  }
  endParagraph();
  return blocks;
}

type Delimiter = '**' | '__' | '*' | '_';

/** Reads code spans, bold, italics, links (as text) and hard line breaks of one block's text. */
export function parseInlines(text: string): Inline[] {
  const root: Inline[] = [];
  const stack: { delimiter: Delimiter; children: Inline[]; parent: Inline[] }[] = [];
  let children = root;
  let buffer = '';
  const flush = (): void => {
    if (buffer !== '') children.push({ kind: 'text', text: buffer });
    buffer = '';
  };
  let index = 0;
  while (index < text.length) {
    const character = text[index] ?? '';
    if (
      character === '\\' &&
      index + 1 < text.length &&
      /[\\`*_{}[\]()#+\-.!>~|]/.test(text[index + 1] ?? '')
    ) {
      buffer += text[index + 1];
      index += 2;
      continue;
    }
    if (character === '`') {
      let run = 1;
      while (text[index + run] === '`') run += 1;
      const fence = '`'.repeat(run);
      const close = text.indexOf(fence, index + run);
      if (close !== -1) {
        flush();
        const inner = text.slice(index + run, close).replace(/\n/g, ' ');
        const trimmed = /^ .* $/.test(inner) && inner.trim() !== '' ? inner.slice(1, -1) : inner;
        children.push({ kind: 'code', text: trimmed });
        index = close + run;
        continue;
      }
      buffer += fence;
      index += run;
      continue;
    }
    if (character === '\n') {
      const hard = buffer.endsWith('  ');
      buffer = hard ? buffer.replace(/ +$/, '') : buffer;
      if (hard) {
        flush();
        children.push({ kind: 'break' });
      } else buffer += '\n';
      index += 1;
      continue;
    }
    if (character === '[') {
      const link = /^\[([^\]\n]*)\]\(([^)\s]*)\)/.exec(text.slice(index, index + 2048));
      if (link !== null) {
        buffer += link[1] ?? '';
        index += link[0].length;
        continue;
      }
    }
    if (character === '*' || character === '_') {
      const double = text[index + 1] === character;
      const delimiter = (double ? character + character : character) as Delimiter;
      const open = stack.findIndex((frame) => frame.delimiter === delimiter);
      const before = text[index - 1] ?? ' ';
      const after = text[index + delimiter.length] ?? ' ';
      const intraword = character === '_' && /\w/.test(before) && /\w/.test(after);
      if (!intraword && open !== -1 && !/\s/.test(before)) {
        flush();
        while (stack.length - 1 > open) {
          const frame = stack.pop()!;
          frame.parent.push({ kind: 'text', text: frame.delimiter }, ...frame.children);
          children = frame.parent;
        }
        const frame = stack.pop()!;
        frame.parent.push({ kind: delimiter.length === 2 ? 'strong' : 'emphasis', children: frame.children });
        children = frame.parent;
        index += delimiter.length;
        continue;
      }
      if (
        !intraword &&
        stack.length < MAX_NESTING &&
        !/\s/.test(after) &&
        text.indexOf(delimiter, index + delimiter.length) !== -1
      ) {
        flush();
        const frame = { delimiter, children: [] as Inline[], parent: children };
        stack.push(frame);
        children = frame.children;
        index += delimiter.length;
        continue;
      }
      buffer += delimiter;
      index += delimiter.length;
      continue;
    }
    buffer += character;
    index += 1;
  }
  flush();
  while (stack.length > 0) {
    const frame = stack.pop()!;
    frame.parent.push({ kind: 'text', text: frame.delimiter }, ...frame.children);
  }
  return mergeText(root);
}

function mergeText(inlines: readonly Inline[]): Inline[] {
  const merged: Inline[] = [];
  for (const inline of inlines) {
    const last = merged[merged.length - 1];
    if (inline.kind === 'text' && last?.kind === 'text')
      merged[merged.length - 1] = { kind: 'text', text: last.text + inline.text };
    else if (inline.kind === 'strong' || inline.kind === 'emphasis')
      merged.push({ kind: inline.kind, children: mergeText(inline.children) });
    else merged.push(inline);
  }
  return merged;
}
