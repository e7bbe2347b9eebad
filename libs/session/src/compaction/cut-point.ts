// Where a compaction may cut the path and where the kept region starts (reference §4.1–4.3),
// with defects 3, 5, 6 and 24 of §11.1 fixed: split-ness is decided on the first message at or
// after the cut, `custom`-role messages are cut points and turn starts, custom and branch-summary
// messages count towards the kept budget, and a kept tool result never loses its call.
import type { SessionEntry } from '../entries/entries';
import { messageFromEntry } from '../context/message-from-entry';
import { estimateMessageTokens } from '../tokens/estimate';
import type { TokenCounter } from '../tokens/token-counter';

export interface CutPoint {
  /** Index of the first entry of the kept region. */
  readonly firstKeptEntryIndex: number;
  /** Index of the user-side message that starts the turn cut in two; −1 when not split. */
  readonly turnStartIndex: number;
  readonly isSplitTurn: boolean;
}

/** Whether the entry contributes a message to the context (`message`, `custom_message`, `branch_summary`). */
export function isMessageBearingEntry(entry: SessionEntry): boolean {
  return entry.type === 'message' || entry.type === 'custom_message' || entry.type === 'branch_summary';
}

/**
 * Whether a compaction may keep everything from this entry on. Every message except a tool
 * result qualifies (a cut there would separate the result from its call), as do custom-message
 * and branch-summary entries.
 */
export function isValidCutPoint(entry: SessionEntry): boolean {
  switch (entry.type) {
    case 'message':
      return entry.message.role !== 'toolResult';
    case 'custom_message':
    case 'branch_summary':
      return true;
    case 'compaction':
    case 'thinking_level_change':
    case 'model_change':
    case 'custom':
    case 'label':
    case 'session_info':
    case 'ttsr_injection':
    case 'session_init':
    case 'mode_change':
      return false;
    default: {
      const unreachable: never = entry;
      throw new Error(`unknown entry type ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Whether the entry opens a turn: a user-side message (user, bash or python run by the user,
 * extension message) or a custom-message / branch-summary entry. Assistant messages, tool
 * results and file mentions belong to the turn they follow.
 */
export function isTurnStart(entry: SessionEntry): boolean {
  switch (entry.type) {
    case 'message':
      switch (entry.message.role) {
        case 'user':
        case 'bashExecution':
        case 'pythonExecution':
        case 'custom':
          return true;
        case 'assistant':
        case 'toolResult':
        case 'fileMention':
          return false;
        default: {
          const unreachable: never = entry.message;
          throw new Error(`unknown message role ${JSON.stringify(unreachable)}`);
        }
      }
    case 'custom_message':
    case 'branch_summary':
      return true;
    case 'compaction':
    case 'thinking_level_change':
    case 'model_change':
    case 'custom':
    case 'label':
    case 'session_info':
    case 'ttsr_injection':
    case 'session_init':
    case 'mode_change':
      return false;
    default: {
      const unreachable: never = entry;
      throw new Error(`unknown entry type ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Indices of the valid cut points in `[start, end)`, ascending. */
export function findValidCutPoints(entries: readonly SessionEntry[], start: number, end: number): number[] {
  const indices: number[] = [];
  for (let index = start; index < end; index += 1) {
    const entry = entries[index];
    if (entry && isValidCutPoint(entry)) indices.push(index);
  }
  return indices;
}

/** The nearest turn start at or before `index`, not before `start`; −1 when there is none. */
export function findTurnStartIndex(entries: readonly SessionEntry[], index: number, start: number): number {
  for (let position = index; position >= start; position -= 1) {
    const entry = entries[position];
    if (entry && isTurnStart(entry)) return position;
  }
  return -1;
}

/** Estimated tokens an entry adds to the context (0 for entries that add no message). */
export function entryContextTokens(entry: SessionEntry, counter: TokenCounter): number {
  const message = messageFromEntry(entry);
  return message ? estimateMessageTokens(message, counter) : 0;
}

/**
 * Moves a cut back until no tool result in the kept region `[cut, end)` answers a call made
 * before the cut (inside `[start, cut)`). Returns the possibly earlier cut, always a valid cut
 * point (the assistant message holding the call).
 */
export function keepToolCallsWithResults(
  entries: readonly SessionEntry[],
  start: number,
  end: number,
  cut: number,
): number {
  const callIndexById = new Map<string, number>();
  for (let index = start; index < end; index += 1) {
    const entry = entries[index];
    if (entry?.type !== 'message' || entry.message.role !== 'assistant') continue;
    for (const block of entry.message.content) {
      if (block.type === 'toolCall' && !callIndexById.has(block.id)) callIndexById.set(block.id, index);
    }
  }
  let adjusted = cut;
  for (let index = end - 1; index >= adjusted; index -= 1) {
    const entry = entries[index];
    if (entry?.type !== 'message' || entry.message.role !== 'toolResult') continue;
    const callIndex = callIndexById.get(entry.message.toolCallId);
    if (callIndex !== undefined && callIndex < adjusted) adjusted = callIndex;
  }
  return adjusted;
}

/**
 * Decides whether the kept region starting at `cut` splits a turn: the first message-bearing
 * entry at or after the cut decides. A turn start there means no split; otherwise the turn
 * began at the nearest earlier turn start (a split), or before `start` (not split: the turn's
 * beginning is already summarised).
 */
export function classifyCut(
  entries: readonly SessionEntry[],
  start: number,
  end: number,
  cut: number,
): CutPoint {
  let firstMessageIndex = cut;
  while (firstMessageIndex < end) {
    const entry = entries[firstMessageIndex];
    if (entry && isMessageBearingEntry(entry)) break;
    firstMessageIndex += 1;
  }
  const firstMessage = entries[firstMessageIndex];
  if (firstMessageIndex >= end || !firstMessage || isTurnStart(firstMessage)) {
    return { firstKeptEntryIndex: cut, turnStartIndex: -1, isSplitTurn: false };
  }
  const turnStartIndex = findTurnStartIndex(entries, firstMessageIndex, start);
  return { firstKeptEntryIndex: cut, turnStartIndex, isSplitTurn: turnStartIndex !== -1 };
}

/**
 * The cut keeping roughly `keepRecentTokens` of the newest context in `[start, end)`.
 *
 * Walks from the newest entry back, adding the estimated tokens of every message-bearing
 * entry; the first entry that brings the total to the budget fixes the cut at the nearest
 * valid cut point at or after it (everything is kept when the budget is never reached). The
 * cut then moves back to keep every kept tool result with its call, and over metadata entries
 * (model, thinking level, labels, custom data, custom messages, branch summaries) sitting just
 * before it, stopping at a message or a compaction. With no valid cut point, the cut is `start`.
 */
export function findCutPoint(
  entries: readonly SessionEntry[],
  start: number,
  end: number,
  keepRecentTokens: number,
  counter: TokenCounter,
): CutPoint {
  const cutPoints = findValidCutPoints(entries, start, end);
  const firstCutPoint = cutPoints[0];
  if (firstCutPoint === undefined)
    return { firstKeptEntryIndex: start, turnStartIndex: -1, isSplitTurn: false };

  let cut = firstCutPoint;
  let keptTokens = 0;
  for (let index = end - 1; index >= start; index -= 1) {
    const entry = entries[index];
    if (!entry) continue;
    keptTokens += entryContextTokens(entry, counter);
    if (keptTokens >= keepRecentTokens) {
      const nearest = cutPoints.find((cutPoint) => cutPoint >= index);
      if (nearest !== undefined) cut = nearest;
      else cut = cutPoints[cutPoints.length - 1] ?? firstCutPoint;
      break;
    }
  }

  return classifyCut(entries, start, end, settleCut(entries, start, end, cut));
}

/**
 * Where a chosen cut settles: moved back to keep every kept tool result with its call, then over
 * the metadata entries sitting just before it, stopping at a message or a compaction.
 */
function settleCut(entries: readonly SessionEntry[], start: number, end: number, chosen: number): number {
  let cut = keepToolCallsWithResults(entries, start, end, chosen);
  while (cut > start) {
    const previous = entries[cut - 1];
    if (!previous || previous.type === 'message' || previous.type === 'compaction') break;
    cut -= 1;
  }
  return cut;
}

/** Whether some entry in `[start, end)` contributes a message (something to summarise). */
function hasMessageIn(entries: readonly SessionEntry[], start: number, end: number): boolean {
  for (let index = start; index < end; index += 1) {
    const entry = entries[index];
    if (entry && messageFromEntry(entry) !== undefined) return true;
  }
  return false;
}

/**
 * The cut of a forced compaction (issue 13.4), for a window whose context fits in the keep
 * budget so that `findCutPoint` keeps all of it: keep the last turn only, that is, cut at the
 * latest turn start that leaves a message before it in the window; when the window is one turn,
 * keep the end of that turn: the latest valid cut point with a message before it (the turn is
 * split and its beginning summarised as the turn prefix). A candidate settles as `findCutPoint`'s
 * cut does (a kept tool result keeps its call, metadata before the cut is kept); one that then
 * leaves nothing to summarise is passed over for the next earlier one. Undefined when no cut
 * leaves something to summarise (a window of one message).
 */
export function findForcedCutPoint(
  entries: readonly SessionEntry[],
  start: number,
  end: number,
): CutPoint | undefined {
  const cutPoints = findValidCutPoints(entries, start, end).reverse();
  const candidates = [
    ...cutPoints.filter((index) => isTurnStart(entries[index] as SessionEntry)),
    ...cutPoints.filter((index) => !isTurnStart(entries[index] as SessionEntry)),
  ];
  for (const candidate of candidates) {
    const cut = settleCut(entries, start, end, candidate);
    if (hasMessageIn(entries, start, cut)) return classifyCut(entries, start, end, cut);
  }
  return undefined;
}
