// What survives a chain of compactions: for each compaction, the facts of everything summarised so
// far (every entry before its first kept entry, on the original file) and whether its summary
// still holds them. Facts, taken from the file and not from any summary:
// - modified paths: the `path` of every `edit` / `write` call (the lists pi's file tags hold);
// - the last user request: the text of the last user message, compared word for word;
// - the latest error: the last tool result pi marked `isError`, represented by its first line
//   that says what went wrong (mentions an error, a failure, an abort, an exit code, "could not",
//   "no changes", "not found"), or its first line; compared on its first 120 characters.
import {
  type AgentMessage,
  type SessionEntry,
  TOOL_RESULT_CHARACTER_LIMIT,
  computeFileLists,
  fileOperationsOfMessages,
  messageFromEntry,
} from '@strata/session';
import { messageText } from '@strata/testing';

/** One compaction to measure: where it cut, what it stored, what its summariser wrote. */
export interface MeasuredCompaction {
  readonly firstKeptEntryId: string;
  /** The stored summary (for Strata's, with the file lists). */
  readonly summary: string;
  /** The summariser's own text, before any file lists. */
  readonly generated: string;
}

export interface SurvivalFigures {
  /** 1 for the first compaction of a chain. */
  readonly compaction: number;
  readonly modifiedPaths: number;
  /** Modified paths found in the stored summary (summariser text and file lists). */
  readonly modifiedPathsInSummary: number;
  /** Modified paths found in the summariser's own text, before the file lists are added. */
  readonly modifiedPathsInText: number;
  readonly lastRequest: string;
  readonly lastRequestKept: boolean;
  readonly latestError: string | undefined;
  readonly latestErrorKept: boolean;
  /** Items listed under Blocked and lines under Errors seen (of every part of the summary). */
  readonly blockedItems: number;
  readonly errorLines: number;
  readonly summaryCharacters: number;
}

const ERROR_PREFIX_COMPARED = 120;
const saysWhatFailed = /error|fail|abort|exited with code|could not|no changes|not found/i;

/** The line of a failed result that stands for it, from the part a summariser is shown. */
export function failureLineOf(resultText: string): string | undefined {
  const lines = resultText
    .slice(0, TOOL_RESULT_CHARACTER_LIMIT)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return (lines.find((line) => saysWhatFailed.test(line)) ?? lines[0])?.slice(0, ERROR_PREFIX_COMPARED);
}

function summarisedMessages(
  compaction: MeasuredCompaction,
  original: readonly SessionEntry[],
): AgentMessage[] {
  const firstKept = compaction.firstKeptEntryId;
  const end = original.findIndex((entry) => entry.id === firstKept);
  if (end === -1) throw new Error(`first kept entry ${firstKept} is not in the file`);
  return original
    .slice(0, end)
    .map(messageFromEntry)
    .filter(
      (message): message is AgentMessage => message !== undefined && message.role !== 'compactionSummary',
    );
}

function sectionItems(summary: string, heading: string): number {
  let count = 0;
  let inside = false;
  for (const line of summary.split('\n')) {
    if (line.startsWith('#')) inside = line.trim() === heading;
    else if (inside && /^- /.test(line) && line !== '- (none)' && !/^- \(\d+ earlier/.test(line)) count += 1;
  }
  return count;
}

/** The survival figures of each compaction of a chain made on `original` (the file's entries). */
export function survivalFigures(
  chain: readonly MeasuredCompaction[],
  original: readonly SessionEntry[],
): SurvivalFigures[] {
  const withoutCompactions = original.filter((entry) => entry.type !== 'compaction');
  return chain.map((compaction, index) => {
    const messages = summarisedMessages(compaction, withoutCompactions);
    const { modifiedFiles } = computeFileLists(fileOperationsOfMessages(messages));
    const summary = compaction.summary;
    const lastRequest = messageText(
      messages.filter((message) => message.role === 'user').at(-1) ?? {
        role: 'user',
        content: '',
        timestamp: 0,
      },
    );
    const failed = messages.filter((message) => message.role === 'toolResult' && message.isError).at(-1);
    const latestError = failed === undefined ? undefined : failureLineOf(messageText(failed));
    return {
      compaction: index + 1,
      modifiedPaths: modifiedFiles.length,
      modifiedPathsInSummary: modifiedFiles.filter((path) => summary.includes(path)).length,
      modifiedPathsInText: modifiedFiles.filter((path) => compaction.generated.includes(path)).length,
      lastRequest,
      lastRequestKept: lastRequest.length > 0 && summary.includes(lastRequest),
      latestError,
      latestErrorKept: latestError !== undefined && summary.includes(latestError),
      blockedItems: sectionItems(summary, '### Blocked'),
      errorLines: sectionItems(summary, '### Errors seen'),
      summaryCharacters: summary.length,
    };
  });
}
