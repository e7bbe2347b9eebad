// The emit rule shared by context building, compaction and branch-summary preparation
// (reference §2.1 step 5): which entries contribute a message, and which message.
import type { BranchSummaryEntry, CompactionEntry, SessionEntry } from '../entries/entries';
import type {
  AgentMessage,
  BranchSummaryMessage,
  CompactionSummaryMessage,
  CustomMessage,
} from '../entries/messages';

/** Milliseconds of an ISO timestamp; 0 when it does not parse (pure: no clock involved). */
export function isoToMillis(timestamp: string): number {
  const millis = Date.parse(timestamp);
  return Number.isFinite(millis) ? millis : 0;
}

/** The summary message of a compaction; `withShortSummary` (default true) carries oh-my-pi's short summary. */
export function compactionSummaryMessage(
  entry: CompactionEntry,
  withShortSummary = true,
): CompactionSummaryMessage {
  return {
    role: 'compactionSummary',
    summary: entry.summary,
    ...(withShortSummary && entry.shortSummary !== undefined ? { shortSummary: entry.shortSummary } : {}),
    tokensBefore: entry.tokensBefore,
    timestamp: isoToMillis(entry.timestamp),
  };
}

export function branchSummaryMessage(entry: BranchSummaryEntry): BranchSummaryMessage {
  return {
    role: 'branchSummary',
    summary: entry.summary,
    fromId: entry.fromId,
    timestamp: isoToMillis(entry.timestamp),
  };
}

/**
 * The message an entry contributes to a context, or undefined: `message` entries give their
 * message, `custom_message` a `custom` message, a non-empty `branch_summary` a `branchSummary`.
 * Compactions are handled by the context builder (only the latest on the path counts).
 */
export function messageFromEntry(entry: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case 'message':
      return entry.message;
    case 'custom_message': {
      const message: CustomMessage = {
        role: 'custom',
        customType: entry.customType,
        content: entry.content,
        display: entry.display,
        ...(entry.details !== undefined ? { details: entry.details } : {}),
        timestamp: isoToMillis(entry.timestamp),
      };
      return message;
    }
    case 'branch_summary':
      return entry.summary.length > 0 ? branchSummaryMessage(entry) : undefined;
    case 'compaction':
    case 'thinking_level_change':
    case 'model_change':
    case 'custom':
    case 'label':
    case 'session_info':
    case 'ttsr_injection':
    case 'session_init':
    case 'mode_change':
      return undefined;
    default: {
      const unreachable: never = entry;
      throw new Error(`unknown entry type ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * The message an entry gives a compaction or branch summary to summarise: as in the context,
 * except that a branch summary counts even when empty, as pi 0.73.1 prepares it (the context
 * leaves an empty one out, in both).
 */
export function summarizedMessageFromEntry(entry: SessionEntry): AgentMessage | undefined {
  return entry.type === 'branch_summary' ? branchSummaryMessage(entry) : messageFromEntry(entry);
}
