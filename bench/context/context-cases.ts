// The work the context suite times, in two shapes:
// - the reference shape (the baseline): every call builds the id index from the entry array,
//   walks the whole root→leaf path, and estimates every message with chars/4 (reference §2.1,
//   §3.1, §4.4), which is what upstream does on each context request;
// - Strata's shape: the id index is held with the live session (DESIGN.md decision 6) and token
//   counts come from o200k_base, counted once per entry (or per text) and then looked up.
import {
  buildSessionContext,
  charsPerFourCounter,
  convertToLlm,
  estimateMessageTokens,
  pathToEntry,
  prepareCompaction,
  type AgentMessage,
  type CompactionPreparation,
  type ContextTemplates,
  type SessionEntry,
  type TokenCounter,
} from '@strata/session';
import type { HeldSession } from './datasets';

export interface ContextFigures {
  readonly messages: number;
  readonly llmMessages: number;
  readonly tokens: number;
}

/** The reference shape: index, path, context, provider messages and chars/4, all from scratch. */
export function referenceShapeContext(
  entries: readonly SessionEntry[],
  leafId: string,
  templates: ContextTemplates,
): ContextFigures {
  const context = buildSessionContext(entries, leafId, { repairToolCallPairing: false });
  const llm = convertToLlm(context.messages, templates);
  let tokens = 0;
  for (const message of context.messages) tokens += estimateMessageTokens(message, charsPerFourCounter);
  return { messages: context.messages.length, llmMessages: llm.length, tokens };
}

/**
 * Token counts per entry id (the compaction summary under its compaction's id), as the context
 * projection keeps them: each entry is counted once with the given counter.
 */
export class EntryTokenCounts {
  private readonly counts = new Map<string, number>();

  constructor(readonly counter: TokenCounter) {}

  tokensOf(message: AgentMessage, entryId: string | null): number {
    if (entryId === null) return estimateMessageTokens(message, this.counter);
    const known = this.counts.get(entryId);
    if (known !== undefined) return known;
    const counted = estimateMessageTokens(message, this.counter);
    this.counts.set(entryId, counted);
    return counted;
  }

  get size(): number {
    return this.counts.size;
  }
}

/** Strata's shape: the held index, the repaired context, provider messages, cached o200k counts. */
export function strataContext(
  session: HeldSession,
  templates: ContextTemplates,
  counts: EntryTokenCounts,
): ContextFigures {
  const context = buildSessionContext({ entries: session.entries, byId: session.byId }, session.leafId);
  const llm = convertToLlm(context.messages, templates);
  let tokens = 0;
  context.messages.forEach((message, index) => {
    const entryId = context.entryIds[index] ?? null;
    const key = entryId ?? (message.role === 'compactionSummary' ? context.compactionId : null);
    tokens += counts.tokensOf(message, key);
  });
  return { messages: context.messages.length, llmMessages: llm.length, tokens };
}

/** The leaf context's messages counted from scratch with `counter` (no cache). */
export function countContextTokens(messages: readonly AgentMessage[], counter: TokenCounter): number {
  let tokens = 0;
  for (const message of messages) tokens += estimateMessageTokens(message, counter);
  return tokens;
}

/** A counter that remembers the count of every text piece it has seen (exact for o200k). */
export function rememberingCounter(counter: TokenCounter, imageCost: number): TokenCounter {
  const pieceCounts = new Map<string, number>();
  return {
    name: `${counter.name}+cache`,
    countPieces(pieces, imageCount) {
      let tokens = imageCount * imageCost;
      for (const piece of pieces) {
        let count = pieceCounts.get(piece);
        if (count === undefined) {
          count = counter.countPieces([piece], 0);
          pieceCounts.set(piece, count);
        }
        tokens += count;
      }
      return tokens;
    },
  };
}

export const KEEP_RECENT_TOKENS = 20_000;

/** The reference shape of compaction preparation: index and path from scratch, chars/4. */
export function referenceShapePreparation(
  entries: readonly SessionEntry[],
  leafId: string,
): CompactionPreparation {
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) byId.set(entry.id, entry);
  return prepareCompaction(
    pathToEntry(byId, leafId),
    { keepRecentTokens: KEEP_RECENT_TOKENS },
    charsPerFourCounter,
  );
}

/** Strata's shape: the path from the held index, counted with `counter`. */
export function strataPreparation(session: HeldSession, counter: TokenCounter): CompactionPreparation {
  return prepareCompaction(
    pathToEntry(session.byId, session.leafId),
    { keepRecentTokens: KEEP_RECENT_TOKENS },
    counter,
  );
}

/** The figures of a preparation worth recording with the results. */
export function describePreparation(preparation: CompactionPreparation): Record<string, unknown> {
  if (preparation.kind === 'skip') return { skipped: preparation.reason };
  return {
    firstKeptEntryId: preparation.firstKeptEntryId,
    isSplitTurn: preparation.isSplitTurn,
    tokensBefore: preparation.tokensBefore,
    keepRecentTokensUsed: preparation.keepRecentTokensUsed,
    messagesToSummarize: preparation.messagesToSummarize.length,
    turnPrefixMessages: preparation.turnPrefixMessages.length,
    recentMessages: preparation.recentMessages.length,
  };
}
