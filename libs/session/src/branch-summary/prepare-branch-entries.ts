// Which abandoned entries a branch summary reads (reference §6.2), newest first within a token
// budget. Defect 20 of §11.1 fixed: tool results are part of the input, charged at the size they
// have in the transcript (cut to 2,000 characters).
import { fileListsOf, type SessionEntry } from '../entries/entries';
import type { AgentMessage } from '../entries/messages';
import { compactionSummaryMessage, summarizedMessageFromEntry } from '../context/message-from-entry';
import {
  addFileLists,
  addFileOperationsOfMessage,
  createFileOperationsCollector,
  toFileOperations,
  type FileOperations,
} from '../compaction/file-operations';
import { TOOL_RESULT_CHARACTER_LIMIT, truncatedTextNotice } from '../compaction/serialize-conversation';
import { estimateMessageTokens } from '../tokens/estimate';
import type { TokenCounter } from '../tokens/token-counter';

export interface BranchSummaryInput {
  /** The messages to summarise, oldest first. */
  readonly messages: readonly AgentMessage[];
  /** Files read and modified on the branch, cumulative over nested branch summaries. */
  readonly fileOperations: FileOperations;
  readonly totalTokens: number;
}

/**
 * The message an abandoned entry contributes: compactions count as their summary, and branch
 * summaries even when empty (as pi 0.73.1's `prepareBranchEntries`).
 */
export function branchEntryMessage(entry: SessionEntry): AgentMessage | undefined {
  return entry.type === 'compaction' ? compactionSummaryMessage(entry) : summarizedMessageFromEntry(entry);
}

/** Tokens a message takes in a summariser transcript (a tool result only up to its cut). */
export function transcriptTokens(message: AgentMessage, counter: TokenCounter): number {
  if (message.role !== 'toolResult') return estimateMessageTokens(message, counter);
  let text = '';
  for (const block of message.content) if (block.type === 'text') text += block.text;
  if (text.length > TOOL_RESULT_CHARACTER_LIMIT) {
    text =
      text.slice(0, TOOL_RESULT_CHARACTER_LIMIT) +
      truncatedTextNotice(text.length - TOOL_RESULT_CHARACTER_LIMIT);
  }
  return counter.countPieces([text], 0);
}

/**
 * Pass 1 gathers the file lists of earlier engine-made branch summaries among `entries`. Pass 2
 * walks newest to oldest, adding messages while they fit in `tokenBudget` (no limit when it is
 * ≤ 0). At the edge, a compaction or branch summary is still taken while less than 90 % of the
 * budget is used, for continuity; the walk stops there in any case.
 */
export function prepareBranchEntries(
  entries: readonly SessionEntry[],
  tokenBudget: number,
  counter: TokenCounter,
): BranchSummaryInput {
  const files = createFileOperationsCollector();
  for (const entry of entries) {
    const lists = entry.type === 'branch_summary' ? fileListsOf(entry) : undefined;
    if (lists) addFileLists(files, lists);
  }

  const messages: AgentMessage[] = [];
  let totalTokens = 0;
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index];
    const message = entry ? branchEntryMessage(entry) : undefined;
    if (!entry || !message) continue;
    const tokens = transcriptTokens(message, counter);
    if (tokenBudget > 0 && totalTokens + tokens > tokenBudget) {
      const isSummary = entry.type === 'compaction' || entry.type === 'branch_summary';
      if (isSummary && totalTokens < 0.9 * tokenBudget) {
        messages.unshift(message);
        totalTokens += tokens;
      }
      break;
    }
    messages.unshift(message);
    totalTokens += tokens;
    addFileOperationsOfMessage(files, message);
  }
  return { messages, fileOperations: toFileOperations(files), totalTokens };
}
