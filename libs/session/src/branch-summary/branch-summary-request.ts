// The summary request for an abandoned branch and the stored text made from its answer
// (reference §6.3), without calling any model. Defect 10 of §11.1 fixed: the preamble and the
// file tags are each set off from the generated summary by a blank line.
import type { ContextTemplates } from '../context/context-templates';
import { renderTemplate } from '../context/context-templates';
import type { FileLists } from '../entries/entries';
import {
  type InputBudget,
  type SummaryRequest,
  buildSummaryPrompt,
  customInstructionsOf,
  withCustomInstructions,
} from '../compaction/summary-request';
import {
  type SummaryTemplates,
  stripFileOperations,
  upsertFileOperations,
} from '../compaction/summary-templates';
import type { BranchSummaryInput } from './prepare-branch-entries';

/** Stored as the summary when no message of the branch fits (no model call). */
export const NO_CONTENT_TO_SUMMARIZE = 'No content to summarize';

/** The output cap of a branch summary. */
export const BRANCH_SUMMARY_MAX_TOKENS = 2048;

export interface BranchSummaryRequestOptions {
  readonly contextTemplates: ContextTemplates;
  /** Replaces the branch-summary instructions (as in the reference; they are not appended). */
  readonly customInstructions?: string;
  readonly inputBudget?: InputBudget;
}

export type BranchSummaryPlan =
  | { readonly kind: 'generate'; readonly request: SummaryRequest }
  | { readonly kind: 'no-content'; readonly summary: string };

export function buildBranchSummaryRequest(
  input: BranchSummaryInput,
  templates: SummaryTemplates,
  options: BranchSummaryRequestOptions,
): BranchSummaryPlan {
  if (input.messages.length === 0) return { kind: 'no-content', summary: NO_CONTENT_TO_SUMMARIZE };
  const systemPrompt = templates.summarizationSystem;
  const custom = customInstructionsOf(options.customInstructions);
  const prompt = buildSummaryPrompt(
    { messages: input.messages, instructions: custom ?? templates.branchSummary },
    systemPrompt,
    options.contextTemplates,
    options.inputBudget,
  );
  return {
    kind: 'generate',
    request: {
      purpose: 'branch',
      systemPrompt,
      prompt,
      maxTokens: BRANCH_SUMMARY_MAX_TOKENS,
      ...withCustomInstructions(custom),
    },
  };
}

/** The stored branch summary: preamble, a blank line, the summary, then the file tags (if any). */
export function assembleBranchSummary(
  generatedSummary: string,
  fileLists: FileLists,
  templates: Pick<SummaryTemplates, 'branchSummaryPreamble' | 'fileOperations'>,
): string {
  const preamble = renderTemplate(templates.branchSummaryPreamble, {});
  const body = stripFileOperations(generatedSummary).trim();
  const text = body.length > 0 ? `${preamble}\n\n${body}` : preamble;
  return upsertFileOperations(text, fileLists, templates.fileOperations);
}
