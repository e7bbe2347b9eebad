import {
  assembleBranchSummary,
  assembleCompactionSummary,
  renderFileOperations,
  type SummaryTemplates,
} from '@strata/session';
import { loadSummaryTemplates, summaryTemplateFiles } from './prompt-library';

describe('the summary templates', () => {
  const templates = loadSummaryTemplates();

  it('are all present and non-empty', () => {
    for (const name of Object.keys(summaryTemplateFiles) as (keyof SummaryTemplates)[]) {
      expect(templates[name].length).toBeGreaterThan(0);
    }
  });

  it('use placeholders only in the file-operations block', () => {
    for (const name of Object.keys(summaryTemplateFiles) as (keyof SummaryTemplates)[]) {
      if (name !== 'fileOperations') expect(templates[name]).not.toContain('{{');
    }
    expect(
      renderFileOperations(
        { readFiles: ['a.ts'], modifiedFiles: ['b.ts', 'c.ts'] },
        templates.fileOperations,
      ),
    ).toBe('<read-files>\na.ts\n</read-files>\n<modified-files>\nb.ts\nc.ts\n</modified-files>');
  });

  it('ask for the reference sections', () => {
    for (const heading of [
      '## Goal',
      '## Constraints & Preferences',
      '## Progress',
      '## Key Decisions',
      '## Next Steps',
    ]) {
      expect(templates.compactionSummary).toContain(heading);
      expect(templates.compactionUpdateSummary).toContain(heading);
      expect(templates.branchSummary).toContain(heading);
    }
    expect(templates.compactionSummary).toContain('## Critical Context');
    expect(templates.compactionUpdateSummary).toContain('<previous-summary>');
    for (const heading of ['## Original Request', '## Early Progress', '## Context for Suffix']) {
      expect(templates.compactionTurnPrefix).toContain(heading);
    }
  });

  it('give a stored compaction summary with the tags after a blank line', () => {
    expect(
      assembleCompactionSummary(
        '## Goal\nShip',
        undefined,
        { readFiles: ['a.ts'], modifiedFiles: [] },
        templates,
      ),
    ).toBe('## Goal\nShip\n\n<read-files>\na.ts\n</read-files>');
  });

  it('give a stored branch summary whose preamble is set off from the summary', () => {
    const stored = assembleBranchSummary('## Goal\nTry B', { readFiles: [], modifiedFiles: [] }, templates);
    expect(stored).toBe(`${templates.branchSummaryPreamble}\n\n## Goal\nTry B`);
    expect(templates.branchSummaryPreamble.endsWith(':')).toBe(true);
  });
});
