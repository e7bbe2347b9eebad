import { renderFileOperations, stripFileOperations, upsertFileOperations } from './summary-templates';

const blockTemplate = '<{{tag}}>\n{{paths}}\n</{{tag}}>\n';

describe('renderFileOperations', () => {
  it('renders one block per non-empty list, read files first, one path per line', () => {
    expect(
      renderFileOperations({ readFiles: ['a.ts', 'b.ts'], modifiedFiles: ['c.ts'] }, blockTemplate),
    ).toBe('<read-files>\na.ts\nb.ts\n</read-files>\n<modified-files>\nc.ts\n</modified-files>');
  });

  it('leaves out an empty list', () => {
    expect(renderFileOperations({ readFiles: [], modifiedFiles: ['c.ts'] }, blockTemplate)).toBe(
      '<modified-files>\nc.ts\n</modified-files>',
    );
  });

  it('renders nothing when both lists are empty', () => {
    expect(renderFileOperations({ readFiles: [], modifiedFiles: [] }, blockTemplate)).toBe('');
  });
});

describe('upsertFileOperations', () => {
  it('sets the tags off from the summary by a blank line (reference defect 10: upstream glued them on)', () => {
    expect(
      upsertFileOperations('## Goal\nShip it', { readFiles: ['a.ts'], modifiedFiles: [] }, blockTemplate),
    ).toBe('## Goal\nShip it\n\n<read-files>\na.ts\n</read-files>');
  });

  it('replaces tags already in the summary instead of adding a second set', () => {
    const previous =
      '## Goal\nShip it\n\n<read-files>\nold.ts\n</read-files>\n<modified-files>\nold.ts\n</modified-files>\n';
    const updated = upsertFileOperations(
      previous,
      { readFiles: ['new.ts'], modifiedFiles: [] },
      blockTemplate,
    );
    expect(updated).toBe('## Goal\nShip it\n\n<read-files>\nnew.ts\n</read-files>');
  });

  it('removes old tags when there are no files any more', () => {
    expect(
      upsertFileOperations(
        'Text<read-files>\nx\n</read-files>',
        { readFiles: [], modifiedFiles: [] },
        blockTemplate,
      ),
    ).toBe('Text');
  });
});

describe('stripFileOperations', () => {
  it('keeps the text around tags in the middle', () => {
    expect(stripFileOperations('Before\n\n<modified-files>\na\n</modified-files>\n\n\nAfter')).toBe(
      'Before\n\nAfter',
    );
  });
});
