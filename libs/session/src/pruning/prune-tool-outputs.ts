// The tool-output pruning decision (reference §7). Pure: it names the results to prune and the
// notice each one shows, and changes nothing; the engine records the decision as an event and
// the context projection shows the notices. Defect 9 of §11.1 fixed: only results still in the
// context (from the latest compaction's first kept entry on) are considered, so the savings
// are real.
import type { SessionEntry } from '../entries/entries';
import { type PrunedResult, prunedResultNotice } from '../context/build-session-context';
import { firstContextEntryIndex } from '../compaction/context-usage';
import { estimateMessageTokens } from '../tokens/estimate';
import { countTextTokens, type TokenCounter } from '../tokens/token-counter';
import type { PruningSettings } from './pruning-settings';

export interface PruneCandidate {
  readonly entryId: string;
  readonly toolName: string;
  /** Estimated tokens of the output being replaced. */
  readonly tokens: number;
  readonly notice: string;
  /** tokens − the notice's tokens, at least 0. */
  readonly tokensSaved: number;
}

export type PruneDecision =
  | {
      readonly kind: 'prune';
      /** Newest first, as found. */
      readonly results: readonly PruneCandidate[];
      readonly tokensSaved: number;
    }
  | {
      readonly kind: 'none';
      readonly reason: 'no_candidates' | 'below_minimum_savings';
      /** What pruning every candidate would have saved. */
      readonly potentialSavings: number;
    };

/**
 * Walks the tool results in the context from newest to oldest, adding up their tokens. Results
 * are protected while the total before them is under `protectTokens` (so the one crossing the
 * line is protected too), and when their tool is protected. Every other result not yet pruned is
 * a candidate. Pruning is proposed only when it saves at least `minimumSavings`.
 *
 * `prunedResults` holds the results already pruned (entry id → record); they count at the size
 * of their notice. Results imported with `prunedAt` already set count at their stored size.
 */
export function pruneToolOutputs(
  pathEntries: readonly SessionEntry[],
  settings: PruningSettings,
  counter: TokenCounter,
  prunedResults: ReadonlyMap<string, PrunedResult> = new Map(),
): PruneDecision {
  const protectedTools = new Set(settings.protectedTools);
  const candidates: PruneCandidate[] = [];
  let totalTokens = 0;
  let potentialSavings = 0;

  for (let index = pathEntries.length - 1; index >= firstContextEntryIndex(pathEntries); index -= 1) {
    const entry = pathEntries[index];
    if (entry?.type !== 'message' || entry.message.role !== 'toolResult') continue;
    const message = entry.message;
    const earlier = prunedResults.get(entry.id);
    if (earlier !== undefined) {
      totalTokens += countTextTokens(counter, prunedResultNotice(earlier.tokens));
      continue;
    }
    const tokens = estimateMessageTokens(message, counter);
    if (
      message.prunedAt !== undefined ||
      totalTokens < settings.protectTokens ||
      protectedTools.has(message.toolName)
    ) {
      totalTokens += tokens;
      continue;
    }
    totalTokens += tokens;
    const notice = prunedResultNotice(tokens);
    const tokensSaved = Math.max(0, tokens - countTextTokens(counter, notice));
    potentialSavings += tokensSaved;
    candidates.push({ entryId: entry.id, toolName: message.toolName, tokens, notice, tokensSaved });
  }

  if (candidates.length === 0) return { kind: 'none', reason: 'no_candidates', potentialSavings: 0 };
  if (potentialSavings < settings.minimumSavings) {
    return { kind: 'none', reason: 'below_minimum_savings', potentialSavings };
  }
  return { kind: 'prune', results: candidates, tokensSaved: potentialSavings };
}
