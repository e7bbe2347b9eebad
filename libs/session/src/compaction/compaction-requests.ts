// The summary requests of a prepared compaction and the merge of their answers (reference
// §5.2–5.3), without calling any model. Differences from the reference (§11.1):
// - 2: a split turn with no history messages keeps the previous summary as its history part;
// - 13: custom instructions and hook context reach the turn-prefix request too;
// - 10: file-operation tags are set off by a blank line and never repeated;
// - 16: with an input budget the transcripts are bounded.
import type { ContextTemplates } from '../context/context-templates';
import type { FileLists } from '../entries/entries';
import type { CompactionReady } from './prepare-compaction';
import {
  type InputBudget,
  type SummaryRequest,
  buildSummaryPrompt,
  withAdditionalFocus,
  withCustomInstructions,
} from './summary-request';
import { type SummaryTemplates, stripFileOperations, upsertFileOperations } from './summary-templates';

/** The history part when there is neither a history message nor a previous summary. */
export const NO_PRIOR_HISTORY = 'No prior history.';

/** Separates the history summary from the turn-prefix summary in a split-turn compaction. */
export const TURN_CONTEXT_HEADING = '**Turn Context (split turn):**';

export interface CompactionRequestOptions {
  /** `compaction.reserveTokens`: the output caps are 0.8, 0.5 and min(512, 0.2) of it. */
  readonly reserveTokens: number;
  /** Wraps earlier summaries that appear in the transcript. */
  readonly contextTemplates: ContextTemplates;
  /** From `/compact <text>`: appended to the history and turn-prefix instructions. */
  readonly customInstructions?: string;
  /** From a `session.compacting` hook: replaces the history summary's base instructions. */
  readonly hookPrompt?: string;
  /** From a `session.compacting` hook: the `<additional-context>` bullets of every request. */
  readonly hookContext?: readonly string[];
  /** Bounds each request's input. */
  readonly inputBudget?: InputBudget;
}

/** The history part: a summary to generate, or text that needs no model call. */
export type HistorySummaryPlan =
  | { readonly kind: 'generate'; readonly request: SummaryRequest }
  | { readonly kind: 'reuse'; readonly summary: string };

export interface CompactionRequestPlan {
  readonly history: HistorySummaryPlan;
  /** Present for a split turn: summarises the turn's beginning. */
  readonly turnPrefix?: SummaryRequest;
  /** Every request to send now (they are independent and may run in parallel). */
  readonly requests: readonly SummaryRequest[];
}

export function historySummaryMaxTokens(reserveTokens: number): number {
  return Math.floor(0.8 * reserveTokens);
}

export function turnPrefixMaxTokens(reserveTokens: number): number {
  return Math.floor(0.5 * reserveTokens);
}

export function shortSummaryMaxTokens(reserveTokens: number): number {
  return Math.min(512, Math.floor(0.2 * reserveTokens));
}

/** The requests for the history summary and, for a split turn, the turn-prefix summary. */
export function buildCompactionRequests(
  preparation: CompactionReady,
  templates: SummaryTemplates,
  options: CompactionRequestOptions,
): CompactionRequestPlan {
  const systemPrompt = templates.summarizationSystem;
  const additionalContext = options.hookContext ?? [];

  let history: HistorySummaryPlan;
  if (preparation.messagesToSummarize.length > 0) {
    const previous = preparation.previousSummary;
    const base =
      options.hookPrompt ??
      (previous !== undefined ? templates.compactionUpdateSummary : templates.compactionSummary);
    const prompt = buildSummaryPrompt(
      {
        messages: preparation.messagesToSummarize,
        ...(previous !== undefined ? { previousSummary: previous } : {}),
        additionalContext,
        instructions: withAdditionalFocus(base, options.customInstructions),
      },
      systemPrompt,
      options.contextTemplates,
      options.inputBudget,
    );
    history = {
      kind: 'generate',
      request: {
        purpose: 'history',
        systemPrompt,
        prompt,
        maxTokens: historySummaryMaxTokens(options.reserveTokens),
        ...withCustomInstructions(options.customInstructions),
      },
    };
  } else {
    history = { kind: 'reuse', summary: preparation.previousSummary ?? NO_PRIOR_HISTORY };
  }

  let turnPrefix: SummaryRequest | undefined;
  if (preparation.isSplitTurn && preparation.turnPrefixMessages.length > 0) {
    const prompt = buildSummaryPrompt(
      {
        messages: preparation.turnPrefixMessages,
        additionalContext,
        instructions: withAdditionalFocus(templates.compactionTurnPrefix, options.customInstructions),
      },
      systemPrompt,
      options.contextTemplates,
      options.inputBudget,
    );
    turnPrefix = {
      purpose: 'turn-prefix',
      systemPrompt,
      prompt,
      maxTokens: turnPrefixMaxTokens(options.reserveTokens),
      ...withCustomInstructions(options.customInstructions),
    };
  }

  const requests: SummaryRequest[] = [];
  if (history.kind === 'generate') requests.push(history.request);
  if (turnPrefix) requests.push(turnPrefix);
  return { history, ...(turnPrefix ? { turnPrefix } : {}), requests };
}

/**
 * The request for the short UI summary: the kept messages as the transcript and the summary
 * just produced (before file tags) as the previous summary.
 */
export function buildShortSummaryRequest(
  preparation: CompactionReady,
  summary: string,
  templates: SummaryTemplates,
  options: Pick<
    CompactionRequestOptions,
    'reserveTokens' | 'contextTemplates' | 'hookContext' | 'inputBudget'
  >,
): SummaryRequest {
  const systemPrompt = templates.summarizationSystem;
  const prompt = buildSummaryPrompt(
    {
      messages: preparation.recentMessages,
      previousSummary: stripFileOperations(summary),
      additionalContext: options.hookContext ?? [],
      instructions: templates.compactionShortSummary,
    },
    systemPrompt,
    options.contextTemplates,
    options.inputBudget,
  );
  return {
    purpose: 'short-summary',
    systemPrompt,
    prompt,
    maxTokens: shortSummaryMaxTokens(options.reserveTokens),
  };
}

/**
 * The summary without file tags: the history part, followed for a split turn by a rule, the
 * turn-context heading and the turn-prefix summary.
 */
export function mergeCompactionSummary(historySummary: string, turnPrefixSummary?: string): string {
  const history = stripFileOperations(historySummary);
  if (turnPrefixSummary === undefined) return history;
  return `${history}\n\n---\n\n${TURN_CONTEXT_HEADING}\n\n${stripFileOperations(turnPrefixSummary)}`;
}

/** The stored compaction summary: the merged text, a blank line, then the file tags (if any). */
export function assembleCompactionSummary(
  historySummary: string,
  turnPrefixSummary: string | undefined,
  fileLists: FileLists,
  templates: Pick<SummaryTemplates, 'fileOperations'>,
): string {
  return upsertFileOperations(
    mergeCompactionSummary(historySummary, turnPrefixSummary),
    fileLists,
    templates.fileOperations,
  );
}
