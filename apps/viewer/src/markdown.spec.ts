import { parseInlines, parseMarkdown } from './markdown';

describe('the summaries’ Markdown reader', () => {
  it('reads headings, paragraphs over several lines and real line ends', () => {
    expect(parseMarkdown('# Goal\nRefactor the\nmodes.\n\n## Done')).toEqual([
      { kind: 'heading', level: 1, inlines: [{ kind: 'text', text: 'Goal' }] },
      { kind: 'paragraph', inlines: [{ kind: 'text', text: 'Refactor the\nmodes.' }] },
      { kind: 'heading', level: 2, inlines: [{ kind: 'text', text: 'Done' }] },
    ]);
    expect(parseMarkdown('a\r\n\r\nb')).toHaveLength(2);
  });

  it('reads bullet, numbered, nested and checkbox lists', () => {
    const [list] = parseMarkdown('- one\n- two\n  - under two\n- [x] done\n- [ ] open');
    expect(list).toEqual({
      kind: 'list',
      ordered: false,
      start: 1,
      items: [
        { depth: 0, inlines: [{ kind: 'text', text: 'one' }] },
        { depth: 0, inlines: [{ kind: 'text', text: 'two' }] },
        { depth: 1, inlines: [{ kind: 'text', text: 'under two' }] },
        { depth: 0, checked: true, inlines: [{ kind: 'text', text: 'done' }] },
        { depth: 0, checked: false, inlines: [{ kind: 'text', text: 'open' }] },
      ],
    });
    expect(parseMarkdown('3. three\n4. four')[0]).toMatchObject({ kind: 'list', ordered: true, start: 3 });
  });

  it('keeps fenced and indented code as it is, markers and markup included', () => {
    expect(parseMarkdown('```ts\nconst a = `*b*`;\n<script>\n```\nafter')).toEqual([
      { kind: 'code', language: 'ts', text: 'const a = `*b*`;\n<script>' },
      { kind: 'paragraph', inlines: [{ kind: 'text', text: 'after' }] },
    ]);
    expect(parseMarkdown('    x = 1\n    y = 2')).toEqual([
      { kind: 'code', language: '', text: 'x = 1\ny = 2' },
    ]);
  });

  it('reads tables with a header row, escaped bars staying in their cell', () => {
    expect(parseMarkdown('| WP | Status |\n|----|:------:|\n| WP1 | done \\| checked |\n\nafter')).toEqual([
      {
        kind: 'table',
        header: [[{ kind: 'text', text: 'WP' }], [{ kind: 'text', text: 'Status' }]],
        rows: [[[{ kind: 'text', text: 'WP1' }], [{ kind: 'text', text: 'done | checked' }]]],
      },
      { kind: 'paragraph', inlines: [{ kind: 'text', text: 'after' }] },
    ]);
    expect(parseMarkdown('| not a table |')[0]).toMatchObject({ kind: 'paragraph' });
  });

  it('reads code spans, bold and italics, links as their text, and leaves HTML as text', () => {
    expect(parseInlines('use `AgentSession` **now**, *not* later')).toEqual([
      { kind: 'text', text: 'use ' },
      { kind: 'code', text: 'AgentSession' },
      { kind: 'text', text: ' ' },
      { kind: 'strong', children: [{ kind: 'text', text: 'now' }] },
      { kind: 'text', text: ', ' },
      { kind: 'emphasis', children: [{ kind: 'text', text: 'not' }] },
      { kind: 'text', text: ' later' },
    ]);
    expect(parseInlines('[the docs](https://example.com) <b onclick="x">hi</b>')).toEqual([
      { kind: 'text', text: 'the docs <b onclick="x">hi</b>' },
    ]);
    expect(parseInlines('snake_case_name and 2 * 3 * 4')).toEqual([
      { kind: 'text', text: 'snake_case_name and 2 * 3 * 4' },
    ]);
    expect(parseInlines('**never closed')).toEqual([{ kind: 'text', text: '**never closed' }]);
  });

  it('loses no text of unmatched markers, however many', () => {
    const hostile = '*a '.repeat(20_000) + '_b'.repeat(20_000);
    const [paragraph] = parseMarkdown(hostile);
    expect(paragraph).toEqual({ kind: 'paragraph', inlines: [{ kind: 'text', text: hostile }] });
  });
});
