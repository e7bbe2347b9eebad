import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { renderTemplate } from '@strata/session';
import {
  contextTemplateFiles,
  defaultPromptsDirectory,
  loadContextTemplates,
  PromptFileMissingError,
} from './prompt-library';

const repositoryRoot = path.resolve(__dirname, '..', '..', '..', '..');

describe('the prompt library', () => {
  describe('given the repository prompts', () => {
    it('finds the repository prompts/ directory from the source file', () => {
      expect(defaultPromptsDirectory()).toBe(path.join(repositoryRoot, 'prompts'));
    });

    it('loads both context templates, each wrapping {{summary}} in <summary> tags', () => {
      const templates = loadContextTemplates();
      for (const template of [templates.compactionSummaryContext, templates.branchSummaryContext]) {
        expect(template).toMatch(/<summary>\s*\{\{summary\}\}\s*<\/summary>/);
        const rendered = renderTemplate(template, { summary: 'THE SUMMARY' });
        expect(rendered).toMatch(/<summary>\nTHE SUMMARY\n<\/summary>$/);
        expect(rendered).not.toContain('{{');
      }
      expect(templates.compactionSummaryContext).not.toBe(templates.branchSummaryContext);
    });
  });

  describe('given a prompts directory with a file missing', () => {
    let directory: string;
    beforeEach(() => {
      directory = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-prompts-'));
      fs.mkdirSync(path.join(directory, 'context'));
      fs.writeFileSync(path.join(directory, contextTemplateFiles.compactionSummaryContext), 'C {{summary}}');
    });
    afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

    it('names the missing file in the error', () => {
      const expectedPath = path.join(directory, contextTemplateFiles.branchSummaryContext);
      expect(() => loadContextTemplates(directory)).toThrow(PromptFileMissingError);
      expect(() => loadContextTemplates(directory)).toThrow(expectedPath);
    });

    it('reads the templates from that directory once they are all present', () => {
      fs.writeFileSync(path.join(directory, contextTemplateFiles.branchSummaryContext), 'B {{summary}}');
      expect(loadContextTemplates(directory)).toEqual({
        compactionSummaryContext: 'C {{summary}}',
        branchSummaryContext: 'B {{summary}}',
      });
    });
  });
});
