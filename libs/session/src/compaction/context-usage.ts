// Measured context size from assistant usage (reference §3.2), with defect 8 of §11.1 fixed:
// usage recorded before the latest compaction on the path describes the context as it was
// before that compaction, so it is stale and ignored. Figures are brought into their bounds
// first (usage-bounds.ts), so a record stored before the bounds existed cannot make an estimate
// negative or infinite.
import type { SessionEntry } from '../entries/entries';
import type { AssistantMessage, Usage } from '../entries/messages';
import { boundedUsage, sumOfTokenFigures } from '../entries/usage-bounds';

/**
 * Context tokens of a usage record: `totalTokens` when non-zero, else the sum of its parts (at
 * most one figure's bound, like any token count of one context).
 */
export function calculateContextTokens(usage: Usage): number {
  const { input, output, cacheRead, cacheWrite, totalTokens } = boundedUsage(usage);
  if (totalTokens !== undefined && totalTokens !== 0) return totalTokens;
  return sumOfTokenFigures([input, output, cacheRead, cacheWrite]);
}

/** Prompt tokens of a usage record: input plus cache reads and writes, else the context tokens. */
export function calculatePromptTokens(usage: Usage): number {
  const { input, cacheRead, cacheWrite } = boundedUsage(usage);
  const promptTokens = sumOfTokenFigures([input, cacheRead, cacheWrite]);
  return promptTokens > 0 ? promptTokens : calculateContextTokens(usage);
}

/**
 * Whether a measured context calls for compaction: `contextTokens > contextWindow − reserveTokens`
 * (strictly greater, as the reference; §3.2).
 */
export function isAboveThreshold(
  contextTokens: number,
  contextWindow: number,
  reserveTokens: number,
): boolean {
  return contextTokens > contextWindow - reserveTokens;
}

/** Index of the latest `compaction` entry, or −1. */
export function latestCompactionIndex(pathEntries: readonly SessionEntry[]): number {
  for (let index = pathEntries.length - 1; index >= 0; index -= 1) {
    if (pathEntries[index]?.type === 'compaction') return index;
  }
  return -1;
}

/**
 * Index of the first path entry whose message can still be in the context: the latest
 * compaction's first kept entry when it precedes that compaction, else the entry after the
 * compaction, else 0.
 */
export function firstContextEntryIndex(pathEntries: readonly SessionEntry[]): number {
  const compactionIndex = latestCompactionIndex(pathEntries);
  const compaction = pathEntries[compactionIndex];
  if (compaction?.type !== 'compaction') return 0;
  for (let index = 0; index < compactionIndex; index += 1) {
    if (pathEntries[index]?.id === compaction.firstKeptEntryId) return index;
  }
  return compactionIndex + 1;
}

export interface FreshUsage {
  readonly usage: Usage;
  /** Path index of the assistant message that reported it. */
  readonly entryIndex: number;
  readonly message: AssistantMessage;
}

/**
 * The usage of the newest assistant message after the latest compaction on the path whose
 * stop reason is neither `aborted` nor `error` and whose usage reports a non-zero context.
 * Undefined when there is none (no model answer since the last compaction). With `end`, only
 * the entries before that index count (the path as it was when the entry at `end` was appended).
 * One walk back from the newest entry, ending at the first answer that counts or at the latest
 * compaction: an append's check point pays for the entries since the last answer, not for the
 * whole path.
 */
export function findFreshAssistantUsage(
  pathEntries: readonly SessionEntry[],
  end = pathEntries.length,
): FreshUsage | undefined {
  for (let index = Math.min(end, pathEntries.length) - 1; index >= 0; index -= 1) {
    const entry = pathEntries[index];
    if (entry?.type === 'compaction') return undefined;
    const measured = measuredAt(pathEntries, index, true);
    if (measured !== undefined) return measured;
  }
  return undefined;
}

/**
 * The usage of the entry at `index` when it is an assistant message whose stop reason is neither
 * `aborted` nor `error` and that has usage (with `freshOnly`, a non-zero context).
 */
function measuredAt(
  pathEntries: readonly SessionEntry[],
  index: number,
  freshOnly: boolean,
): FreshUsage | undefined {
  const entry = pathEntries[index];
  if (entry?.type !== 'message' || entry.message.role !== 'assistant') return undefined;
  const message = entry.message;
  if (message.stopReason === 'aborted' || message.stopReason === 'error') return undefined;
  const { usage } = message;
  if (usage === undefined) return undefined;
  if (freshOnly && calculateContextTokens(usage) === 0) return undefined;
  return { usage, entryIndex: index, message };
}

/**
 * The usage a context measurement starts from. `freshOnly` is `findFreshAssistantUsage`; without
 * it the rule is pi 0.73.1's: the newest assistant message in the context (kept region included)
 * whose stop reason is neither `aborted` nor `error` and that has usage, even a zero one.
 */
export function findContextUsage(
  pathEntries: readonly SessionEntry[],
  freshOnly: boolean,
): FreshUsage | undefined {
  if (freshOnly) return findFreshAssistantUsage(pathEntries);
  const oldest = firstContextEntryIndex(pathEntries);
  for (let index = pathEntries.length - 1; index >= oldest; index -= 1) {
    const measured = measuredAt(pathEntries, index, false);
    if (measured !== undefined) return measured;
  }
  return undefined;
}
