// Loads the Markdown prompt files of `prompts/` (DESIGN.md decision 7). The pure session lib
// receives their texts as data; this is the one place that reads them from disk.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ContextTemplates, SummaryTemplates } from '@strata/session';

/** Files of the context templates, relative to the prompts directory. */
export const contextTemplateFiles = {
  compactionSummaryContext: 'context/compaction-summary-context.md',
  branchSummaryContext: 'context/branch-summary-context.md',
} as const satisfies Record<keyof ContextTemplates, string>;

export class PromptFileMissingError extends Error {
  constructor(readonly filePath: string) {
    super(`Prompt file not found: ${filePath}`);
    this.name = 'PromptFileMissingError';
  }
}

/**
 * The repository's `prompts/` directory: the nearest ancestor of this source file (or of its
 * compiled copy) that holds both `package.json` and `prompts/`.
 */
export function defaultPromptsDirectory(): string {
  let directory = __dirname;
  for (;;) {
    const candidate = path.join(directory, 'prompts');
    if (fs.existsSync(path.join(directory, 'package.json')) && fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(directory);
    if (parent === directory) {
      throw new PromptFileMissingError(`prompts/ (searched upwards from ${__dirname})`);
    }
    directory = parent;
  }
}

function isFileNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}

/** The text of one prompt file, by its path relative to the prompts directory. */
export function readPromptFile(relativePath: string, promptsDirectory = defaultPromptsDirectory()): string {
  const filePath = path.resolve(promptsDirectory, relativePath);
  try {
    return fs.readFileSync(filePath, 'utf8');
  } catch (error) {
    if (isFileNotFound(error)) {
      throw new PromptFileMissingError(filePath);
    }
    throw error;
  }
}

/** The two context templates, read from `promptsDirectory` (default: the repository's). */
export function loadContextTemplates(promptsDirectory = defaultPromptsDirectory()): ContextTemplates {
  return {
    compactionSummaryContext: readPromptFile(contextTemplateFiles.compactionSummaryContext, promptsDirectory),
    branchSummaryContext: readPromptFile(contextTemplateFiles.branchSummaryContext, promptsDirectory),
  };
}

/** Files of the summary templates, relative to the prompts directory. */
export const summaryTemplateFiles = {
  summarizationSystem: 'system/summarization-system.md',
  compactionSummary: 'compaction/compaction-summary.md',
  compactionUpdateSummary: 'compaction/compaction-update-summary.md',
  compactionTurnPrefix: 'compaction/compaction-turn-prefix.md',
  compactionShortSummary: 'compaction/compaction-short-summary.md',
  branchSummary: 'compaction/branch-summary.md',
  branchSummaryPreamble: 'compaction/branch-summary-preamble.md',
  fileOperations: 'system/file-operations.md',
} as const satisfies Record<keyof SummaryTemplates, string>;

/**
 * The summary templates, read from `promptsDirectory` (default: the repository's). The texts
 * are passed on with surrounding whitespace removed; the prompt layout adds its own separators.
 */
export function loadSummaryTemplates(promptsDirectory = defaultPromptsDirectory()): SummaryTemplates {
  const read = (name: keyof SummaryTemplates): string =>
    readPromptFile(summaryTemplateFiles[name], promptsDirectory).trim();
  return {
    summarizationSystem: read('summarizationSystem'),
    compactionSummary: read('compactionSummary'),
    compactionUpdateSummary: read('compactionUpdateSummary'),
    compactionTurnPrefix: read('compactionTurnPrefix'),
    compactionShortSummary: read('compactionShortSummary'),
    branchSummary: read('branchSummary'),
    branchSummaryPreamble: read('branchSummaryPreamble'),
    fileOperations: read('fileOperations'),
  };
}
