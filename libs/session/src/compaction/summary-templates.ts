// The prompt texts a summary request is built from (Markdown files under `prompts/`, loaded by
// the summarizer lib and passed in as data), and the file-operation tags appended to stored
// summaries. Defect 10 of §11.1 fixed: the tags are set off from the summary by a blank line, and
// tags already present (from a reused or echoed previous summary) are replaced, not repeated.
import { renderTemplate } from '../context/context-templates';
import type { FileLists } from '../entries/entries';

export interface SummaryTemplates {
  /** System prompt of every summarisation call (`prompts/system/summarization-system.md`). */
  readonly summarizationSystem: string;
  /** Instructions for a first compaction (`prompts/compaction/compaction-summary.md`). */
  readonly compactionSummary: string;
  /** Instructions for merging into a previous summary (`compaction-update-summary.md`). */
  readonly compactionUpdateSummary: string;
  /** Instructions for the beginning of a split turn (`compaction-turn-prefix.md`). */
  readonly compactionTurnPrefix: string;
  /** Instructions for the short UI summary (`compaction-short-summary.md`). */
  readonly compactionShortSummary: string;
  /** Instructions for an abandoned branch (`prompts/compaction/branch-summary.md`). */
  readonly branchSummary: string;
  /** Put before a generated branch summary (`branch-summary-preamble.md`). */
  readonly branchSummaryPreamble: string;
  /** One file-list block with `{{tag}}` and `{{paths}}` (`prompts/system/file-operations.md`). */
  readonly fileOperations: string;
}

export const READ_FILES_TAG = 'read-files';
export const MODIFIED_FILES_TAG = 'modified-files';

/** The `<read-files>` / `<modified-files>` blocks, each only when its list is non-empty; '' when both are. */
export function renderFileOperations(fileLists: FileLists, fileOperationsTemplate: string): string {
  const blocks: string[] = [];
  const categories: readonly (readonly [string, readonly string[]])[] = [
    [READ_FILES_TAG, fileLists.readFiles],
    [MODIFIED_FILES_TAG, fileLists.modifiedFiles],
  ];
  for (const [tag, paths] of categories) {
    if (paths.length > 0)
      blocks.push(renderTemplate(fileOperationsTemplate, { tag, paths: paths.join('\n') }));
  }
  return blocks.join('\n');
}

const fileOperationBlockPattern = new RegExp(
  `[ \\t]*<(${READ_FILES_TAG}|${MODIFIED_FILES_TAG})>[\\s\\S]*?</\\1>[ \\t]*`,
  'g',
);

/** The text without any file-operation blocks, trailing whitespace removed. */
export function stripFileOperations(text: string): string {
  return text
    .replace(fileOperationBlockPattern, '')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd();
}

/** Replaces the file-operation blocks of `summary` by those of `fileLists`, after a blank line. */
export function upsertFileOperations(
  summary: string,
  fileLists: FileLists,
  fileOperationsTemplate: string,
): string {
  const body = stripFileOperations(summary);
  const tags = renderFileOperations(fileLists, fileOperationsTemplate);
  if (tags.length === 0) return body;
  return body.length > 0 ? `${body}\n\n${tags}` : tags;
}
