// The embedded default summariser (DESIGN.md decision 7): no model and no network. It copies facts
// out of the summary prompt (requests, tool actions, exact paths, error lines, a pending question),
// merges them with a previous summary, and renders them in the reference section layout. The first
// line says it was made without a language model. Same input, same output.
import { conversationFacts } from './conversation-facts';
import { mergeFacts } from './merge-facts';
import { previousSummaryFacts } from './previous-summary';
import { type SectionSet, renderSummary } from './render-summary';
import { withRequestedFocus } from './requested-focus';
import { type SummaryFacts, clip, firstLine, withDerivedSteps } from './summary-facts';
import { type SummaryPromptParts, parseSummaryPrompt } from './summary-prompt';
import { abortedError } from '../errors/summarizer-error';
import type { Summarizer, SummaryPurpose, SummaryRequest, SummaryResult } from '../summarizer.port';

export const OFFLINE_SUMMARIZER_NAME = 'offline-extractive';

/** Characters per token when turning `maxTokens` into a length budget (the reference heuristic). */
const CHARACTERS_PER_TOKEN = 4;

const SHORT_SUMMARY_LABEL = 'Offline extractive summary, made without a language model.';

function sectionSet(purpose: Exclude<SummaryPurpose, 'short'>): SectionSet {
  switch (purpose) {
    case 'history':
    case 'update':
      return 'checkpoint';
    case 'turn_prefix':
      return 'turn_prefix';
    case 'branch':
      return 'branch';
    default: {
      const unreachable: never = purpose;
      throw new Error(`unknown summary purpose ${String(unreachable)}`);
    }
  }
}

function namedFiles(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).map((path) => `\`${path}\``);
  const others = paths.length - shown.length;
  if (others > 0) return `${shown.join(', ')} and ${others} other file${others === 1 ? '' : 's'}`;
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1) ?? ''}` : (shown[0] ?? '');
}

/**
 * One to three sentences about the part that was summarised: the label, the files changed (or
 * read), and the latest request.
 */
export function shortSummaryText(facts: SummaryFacts, budgetCharacters: number): string {
  const sentences = [SHORT_SUMMARY_LABEL];
  if (facts.filesModified.length > 0) sentences.push(`I changed ${namedFiles(facts.filesModified)}.`);
  else if (facts.filesRead.length > 0)
    sentences.push(`I read ${namedFiles(facts.filesRead)} without changing files.`);
  else sentences.push('No file changes were recorded.');
  if (facts.latestRequest !== undefined)
    sentences.push(`Latest request: "${firstLine(facts.latestRequest, 160)}".`);
  return clip(sentences.join(' '), Math.max(SHORT_SUMMARY_LABEL.length, budgetCharacters));
}

export class OfflineExtractiveSummarizer implements Summarizer {
  readonly name = OFFLINE_SUMMARIZER_NAME;

  summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
    if (signal?.aborted === true) {
      return Promise.reject(abortedError(OFFLINE_SUMMARIZER_NAME, signal.reason));
    }
    return Promise.resolve({
      text: offlineSummary(request),
      model: OFFLINE_SUMMARIZER_NAME,
      stopReason: 'unreported',
    });
  }
}

function summaryFacts(parts: SummaryPromptParts): SummaryFacts {
  const current: SummaryFacts = { ...conversationFacts(parts.transcript), notes: parts.additionalContext };
  if (parts.previousSummary === undefined) return current;
  return mergeFacts(previousSummaryFacts(parts.previousSummary), current, parts.transcript.length === 0);
}

/** The offline summary of a request, as text (the pure core of the summariser). */
export function offlineSummary(request: SummaryRequest): string {
  const parts = parseSummaryPrompt(request.prompt);
  const budget = Math.max(1, request.maxTokens) * CHARACTERS_PER_TOKEN;
  if (request.purpose === 'short') {
    // The short summary describes what the compaction summarised: the summary just made arrives
    // as the previous summary, and the transcript holds the kept messages, which stay visible.
    const summarised =
      parts.previousSummary === undefined
        ? conversationFacts(parts.transcript)
        : previousSummaryFacts(parts.previousSummary);
    return shortSummaryText(summarised, budget);
  }
  const facts = withRequestedFocus(
    withDerivedSteps(summaryFacts(parts)),
    request.customInstructions,
    parts.transcript,
  );
  return renderSummary(facts, sectionSet(request.purpose), budget);
}
