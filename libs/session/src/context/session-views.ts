// Views of a session's entries that several use cases share: the path as the model sees
// it (pruned tool outputs replaced by their notice), the model in use, the estimated size of
// the context at a leaf, and the texts entries make a context count.
import { modelChangeTarget, type SessionEntry } from '../entries/entries';
import { estimateMessageTokens, messageTokenPieces } from '../tokens/estimate';
import type { TokenCounter } from '../tokens/token-counter';
import { buildSessionContext, prunedResultNotice, type PrunedResult } from './build-session-context';
import { compactionSummaryMessage, messageFromEntry } from './message-from-entry';

/** The entries with each pruned tool result showing its notice instead of its output. */
export function withPrunedOutputs(
  entries: readonly SessionEntry[],
  prunedResults: ReadonlyMap<string, PrunedResult>,
): SessionEntry[] {
  if (prunedResults.size === 0) return [...entries];
  return entries.map((entry) => {
    const pruned = prunedResults.get(entry.id);
    if (pruned === undefined || entry.type !== 'message' || entry.message.role !== 'toolResult') return entry;
    return {
      ...entry,
      message: {
        ...entry.message,
        content: [{ type: 'text', text: prunedResultNotice(pruned.tokens) }],
        prunedAt: pruned.prunedAt,
      },
    };
  });
}

/**
 * "provider/modelId" of the newest assistant answer or default-role model change on the path,
 * the change in either shape (pi's `provider` and `modelId`, oh-my-pi's `model`).
 */
export function sessionModelOf(pathEntries: readonly SessionEntry[]): string | undefined {
  for (let index = pathEntries.length - 1; index >= 0; index -= 1) {
    const entry = pathEntries[index];
    if (entry?.type === 'message' && entry.message.role === 'assistant') {
      return `${entry.message.provider}/${entry.message.model}`;
    }
    if (entry?.type === 'model_change') {
      const target = modelChangeTarget(entry);
      if (target?.role === 'default') return target.model;
    }
  }
  return undefined;
}

/** The texts a context counts for `entries` (what the engine counts ahead when they arrive). */
export function textsToCount(entries: readonly SessionEntry[]): string[] {
  const texts: string[] = [];
  for (const entry of entries) {
    const message = entry.type === 'compaction' ? compactionSummaryMessage(entry) : messageFromEntry(entry);
    if (message !== undefined) texts.push(...messageTokenPieces(message).pieces);
  }
  return texts;
}

/** Estimated tokens of the context built for `leafId`. */
export function estimateContextTokens(
  entries: readonly SessionEntry[],
  leafId: string | null,
  prunedResults: ReadonlyMap<string, PrunedResult>,
  counter: TokenCounter,
): number {
  const context = buildSessionContext(entries, leafId, { prunedResults });
  return context.messages.reduce((total, message) => total + estimateMessageTokens(message, counter), 0);
}
