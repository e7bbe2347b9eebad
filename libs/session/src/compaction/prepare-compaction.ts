// Compaction preparation (reference §4.4): what the next compaction summarises, what it keeps,
// and the figures it records. Pure: the path goes in, a decision comes out; summaries are made
// elsewhere. Differences from the reference, all from §11.1:
// - 1: the window starts at the previous compaction's first kept entry, so its kept region is
//   summarised or kept again, never dropped;
// - 8: assistant usage older than the latest compaction is stale; estimates stand in for it;
//   as pi 0.73.1, `tokensBefore` is the usage plus an estimate of the messages after it;
// - 17: when nothing would be summarised the answer is `skip`, so no model call is needed
//   (unless the compaction is forced: then it keeps less, see `findForcedCutPoint`);
// - 3, 5, 6, 24: through `findCutPoint`.
import { fileListsOf, type CompactionEntry, type SessionEntry } from '../entries/entries';
import type { AgentMessage } from '../entries/messages';
import {
  compactionSummaryMessage,
  messageFromEntry,
  summarizedMessageFromEntry,
} from '../context/message-from-entry';
import { estimateMessageTokens } from '../tokens/estimate';
import type { TokenCounter } from '../tokens/token-counter';
import type { CompactionSettings } from './compaction-settings';
import { sumOfTokenFigures } from '../entries/usage-bounds';
import {
  calculateContextTokens,
  calculatePromptTokens,
  findContextUsage,
  firstContextEntryIndex,
  latestCompactionIndex,
  type FreshUsage,
} from './context-usage';
import { findCutPoint, findForcedCutPoint, type CutPoint } from './cut-point';
import {
  addFileLists,
  addFileOperationsOfMessage,
  createFileOperationsCollector,
  toFileOperations,
  type FileOperations,
} from './file-operations';

export type CompactionSkipReason =
  /** The newest entry on the path is already a compaction. */
  | 'already_compacted'
  /** No message would be summarised: the whole context fits in the kept budget. */
  | 'nothing_to_summarize';

export interface CompactionSkip {
  readonly kind: 'skip';
  readonly reason: CompactionSkipReason;
}

export interface CompactionReady {
  readonly kind: 'ready';
  readonly firstKeptEntryId: string;
  /** Path index of the first kept entry. */
  readonly firstKeptEntryIndex: number;
  /** Path index where the considered window starts (the previous compaction's first kept entry, or 0). */
  readonly windowStartIndex: number;
  /** Messages for the history summary, oldest first. */
  readonly messagesToSummarize: readonly AgentMessage[];
  /** The summarised beginning of a split turn (empty when the turn is not split). */
  readonly turnPrefixMessages: readonly AgentMessage[];
  /** The kept messages, used for the short summary. */
  readonly recentMessages: readonly AgentMessage[];
  readonly isSplitTurn: boolean;
  /** Path index of the split turn's first message; −1 when not split. */
  readonly turnStartIndex: number;
  /**
   * Context size before compaction: the fresh usage plus an estimate of the messages after it,
   * as pi 0.73.1 counts it; all estimated when there is no fresh usage.
   */
  readonly tokensBefore: number;
  readonly tokensBeforeSource: 'usage' | 'estimate';
  /** Summary of the latest compaction on the path, to be updated. */
  readonly previousSummary?: string;
  readonly previousCompactionId?: string;
  /** Files read and modified, cumulative over earlier engine-made compactions. */
  readonly fileOperations: FileOperations;
  /** The keep budget after calibration against measured usage. */
  readonly keepRecentTokensUsed: number;
  /** Ids of the entries whose messages are summarised (history and turn prefix), oldest first. */
  readonly summarizedEntryIds: readonly string[];
  /**
   * True when the compaction was forced and the keep budget would have kept everything, so the
   * cut is the forced one (`findForcedCutPoint`): the last turn, or the end of the only turn.
   */
  readonly forcedCut: boolean;
}

export type CompactionPreparation = CompactionReady | CompactionSkip;

export interface TokensBeforeOptions {
  /**
   * Use only usage newer than the latest compaction and non-zero (defect 8; default true).
   * `false` is pi 0.73.1's rule (`findContextUsage`). For comparisons only.
   */
  readonly freshUsageOnly?: boolean;
  /** Estimate every role (defect 4; default true); see `messageTokenPieces`. */
  readonly countEveryRole?: boolean;
}

export interface PrepareCompactionOptions extends TokensBeforeOptions {
  /**
   * Shrink the keep budget by the ratio of measured prompt tokens to estimated context tokens,
   * so that the real kept size comes out near the setting (oh-my-pi's keep budget; pi 0.73.1
   * does not calibrate). Default true.
   */
  readonly calibrateKeepBudget?: boolean;
  /**
   * Compact even when the whole context fits in the keep budget (issue 13.4): instead of
   * `skip 'nothing_to_summarize'`, keep less (`findForcedCutPoint`). An empty path, a path ending
   * in a compaction, or a window of one message is still a skip. Default false.
   */
  readonly force?: boolean;
}

export interface TokensBefore {
  /** The usage's context tokens plus the estimate of the messages after it, or the estimate alone. */
  readonly tokens: number;
  readonly source: 'usage' | 'estimate';
  /** The usage the figure starts from, if any. */
  readonly usage: FreshUsage | undefined;
  /** Estimated tokens of the whole context (the previous summary and everything after the window start). */
  readonly estimatedContextTokens: number;
}

/**
 * The context size a compaction of `pathEntries` starts from (pi 0.73.1's
 * `estimateContextTokens` of the context at the path's end): the usage the model last reported
 * plus chars/4 (or the counter's) estimate of the messages after that answer; without usage, the
 * estimate of the whole context.
 */
export function compactionTokensBefore(
  pathEntries: readonly SessionEntry[],
  counter: TokenCounter,
  options: TokensBeforeOptions = {},
): TokensBefore {
  const countEveryRole = options.countEveryRole ?? true;
  const compactionIndex = latestCompactionIndex(pathEntries);
  const previousCompaction =
    compactionIndex >= 0 ? (pathEntries[compactionIndex] as CompactionEntry) : undefined;
  const start = firstContextEntryIndex(pathEntries);
  const usage = findContextUsage(pathEntries, options.freshUsageOnly ?? true);
  let estimatedContextTokens = previousCompaction
    ? estimateMessageTokens(compactionSummaryMessage(previousCompaction), counter, countEveryRole)
    : 0;
  let trailingTokens = 0;
  for (let index = start; index < pathEntries.length; index += 1) {
    const entry = pathEntries[index];
    const message = entry ? messageFromEntry(entry) : undefined;
    if (message === undefined) continue;
    const tokens = estimateMessageTokens(message, counter, countEveryRole);
    estimatedContextTokens += tokens;
    if (usage !== undefined && index > usage.entryIndex) trailingTokens += tokens;
  }
  return usage
    ? {
        tokens: sumOfTokenFigures([calculateContextTokens(usage.usage), trailingTokens]),
        source: 'usage',
        usage,
        estimatedContextTokens,
      }
    : { tokens: estimatedContextTokens, source: 'estimate', usage, estimatedContextTokens };
}

function messagesOf(
  pathEntries: readonly SessionEntry[],
  start: number,
  end: number,
): { messages: AgentMessage[]; ids: string[] } {
  const messages: AgentMessage[] = [];
  const ids: string[] = [];
  for (let index = start; index < end; index += 1) {
    const entry = pathEntries[index];
    const message = entry ? summarizedMessageFromEntry(entry) : undefined;
    if (entry && message) {
      messages.push(message);
      ids.push(entry.id);
    }
  }
  return { messages, ids };
}

/**
 * Decides the next compaction of the root→leaf path `pathEntries`. The window runs from the
 * previous compaction's first kept entry (or the start) to the end; the cut keeps about
 * `settings.keepRecentTokens` (calibrated against fresh usage) and everything before it is
 * summarised, the beginning of a split turn separately.
 */
export function prepareCompaction(
  pathEntries: readonly SessionEntry[],
  settings: Pick<CompactionSettings, 'keepRecentTokens'>,
  counter: TokenCounter,
  options: PrepareCompactionOptions = {},
): CompactionPreparation {
  const end = pathEntries.length;
  const lastEntry = pathEntries[end - 1];
  if (!lastEntry) return { kind: 'skip', reason: 'nothing_to_summarize' };
  if (lastEntry.type === 'compaction') return { kind: 'skip', reason: 'already_compacted' };

  const compactionIndex = latestCompactionIndex(pathEntries);
  const previousCompaction =
    compactionIndex >= 0 ? (pathEntries[compactionIndex] as CompactionEntry) : undefined;
  const start = firstContextEntryIndex(pathEntries);
  const before = compactionTokensBefore(pathEntries, counter, options);
  const freshUsage = before.usage;

  let keepRecentTokens = settings.keepRecentTokens;
  if (freshUsage && options.calibrateKeepBudget !== false) {
    const ratio = calculatePromptTokens(freshUsage.usage) / before.estimatedContextTokens;
    if (Number.isFinite(ratio) && ratio > 1)
      keepRecentTokens = Math.max(1, Math.floor(keepRecentTokens / ratio));
  }

  let split = splitAt(pathEntries, start, findCutPoint(pathEntries, start, end, keepRecentTokens, counter));
  let forcedCut = false;
  if (split.history.messages.length === 0 && split.prefix.messages.length === 0 && options.force === true) {
    const forced = findForcedCutPoint(pathEntries, start, end);
    if (forced !== undefined) {
      split = splitAt(pathEntries, start, forced);
      forcedCut = true;
    }
  }
  const { cut, history, prefix } = split;
  if (history.messages.length === 0 && prefix.messages.length === 0) {
    return { kind: 'skip', reason: 'nothing_to_summarize' };
  }
  const firstKept = pathEntries[cut.firstKeptEntryIndex];
  if (!firstKept) return { kind: 'skip', reason: 'nothing_to_summarize' };

  const files = createFileOperationsCollector();
  const previousLists = previousCompaction ? fileListsOf(previousCompaction) : undefined;
  if (previousLists) addFileLists(files, previousLists);
  for (const message of history.messages) addFileOperationsOfMessage(files, message);
  for (const message of prefix.messages) addFileOperationsOfMessage(files, message);

  return {
    kind: 'ready',
    firstKeptEntryId: firstKept.id,
    firstKeptEntryIndex: cut.firstKeptEntryIndex,
    windowStartIndex: start,
    messagesToSummarize: history.messages,
    turnPrefixMessages: prefix.messages,
    recentMessages: messagesOf(pathEntries, cut.firstKeptEntryIndex, end).messages,
    isSplitTurn: cut.isSplitTurn,
    turnStartIndex: cut.turnStartIndex,
    tokensBefore: before.tokens,
    tokensBeforeSource: before.source,
    ...(previousCompaction
      ? { previousSummary: previousCompaction.summary, previousCompactionId: previousCompaction.id }
      : {}),
    fileOperations: toFileOperations(files),
    keepRecentTokensUsed: keepRecentTokens,
    summarizedEntryIds: [...history.ids, ...prefix.ids],
    forcedCut,
  };
}

interface Split {
  readonly cut: CutPoint;
  /** What the history summary covers: the window up to the cut, or up to the split turn's start. */
  readonly history: { messages: AgentMessage[]; ids: string[] };
  /** The split turn's beginning (empty when the turn is not split). */
  readonly prefix: { messages: AgentMessage[]; ids: string[] };
}

/**
 * The window `[start, …)` divided at `cut`: history and turn prefix. A split turn's start always
 * gives the prefix a message (an empty branch summary counts, as in pi 0.73.1).
 */
function splitAt(pathEntries: readonly SessionEntry[], start: number, cut: CutPoint): Split {
  const prefix = cut.isSplitTurn
    ? messagesOf(pathEntries, cut.turnStartIndex, cut.firstKeptEntryIndex)
    : { messages: [], ids: [] };
  const history = messagesOf(
    pathEntries,
    start,
    cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex,
  );
  return { cut, history, prefix };
}
