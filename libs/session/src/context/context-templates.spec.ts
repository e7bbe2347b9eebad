import { normaliseTemplateLayout, renderTemplate, TemplateVariableMissingError } from './context-templates';

describe('renderTemplate', () => {
  it('substitutes every {{name}} placeholder, with or without inner spaces', () => {
    expect(renderTemplate('A {{summary}} and {{ summary }} for {{who}}.', { summary: 'S', who: 'you' })).toBe(
      'A S and S for you.',
    );
  });

  it('inserts values verbatim, without HTML escaping', () => {
    expect(renderTemplate('<summary>\n{{summary}}\n</summary>', { summary: 'a < b && "c" > \'d\'' })).toBe(
      '<summary>\na < b && "c" > \'d\'\n</summary>',
    );
  });

  it('does not re-expand placeholders found inside a value', () => {
    expect(renderTemplate('{{summary}}', { summary: 'literal {{summary}}' })).toBe('literal {{summary}}');
  });

  it('rejects a placeholder that has no value', () => {
    expect(() => renderTemplate('Hello {{missing}}', {})).toThrow(TemplateVariableMissingError);
    expect(() => renderTemplate('{{toString}}', {})).toThrow(/\{\{toString\}\}/);
  });

  it('normalises the layout of the rendered text, summary included', () => {
    const template = '\r\n  Intro line \r\n\r\n\r\n\r\n<summary>\r\n{{summary}}\r\n</summary>\r\n\r\n';
    expect(renderTemplate(template, { summary: 'first\u00a0line   \n\n\n\nsecond' })).toBe(
      'Intro line\n\n<summary>\nfirst line\n\nsecond\n</summary>',
    );
  });
});

describe('normaliseTemplateLayout', () => {
  it('keeps leading indentation as written (the reference would turn it into tabs)', () => {
    expect(normaliseTemplateLayout('list:\n  - one\n    - two')).toBe('list:\n  - one\n    - two');
  });

  it('strips trailing spaces and tabs from each line and trims the whole text', () => {
    expect(normaliseTemplateLayout('  \n a \t\n b\u00a0\n\n')).toBe('a\n b');
  });
});
