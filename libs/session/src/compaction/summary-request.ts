// One summarisation request as data, and the layout of its prompt (reference §5.2): the
// transcript in `<conversation>`, an optional `<previous-summary>`, optional hook context as an
// `<additional-context>` bullet list, then the instructions. The transcript is fitted into what
// the input budget leaves after everything else (defect 16 of §11.1).
import { convertToLlm } from '../context/convert-to-llm';
import type { ContextTemplates } from '../context/context-templates';
import type { AgentMessage } from '../entries/messages';
import type { TokenCounter } from '../tokens/token-counter';
import { serializeConversation } from './serialize-conversation';

export type SummaryPurpose = 'history' | 'turn-prefix' | 'short-summary' | 'branch';

/** What to send to a summariser: one system prompt, one user prompt, an output cap. */
export interface SummaryRequest {
  readonly purpose: SummaryPurpose;
  readonly systemPrompt: string;
  readonly prompt: string;
  readonly maxTokens: number;
  /**
   * The caller's custom instructions as given (already part of `prompt`), for a summariser
   * that does not follow instructions and must say what it did with them.
   */
  readonly customInstructions?: string;
}

/** Bounds the summariser input; without it the transcript is unbounded (as in the reference). */
export interface InputBudget {
  /** Tokens the whole request (system prompt and prompt) may use, e.g. context window − reserve. */
  readonly inputTokenBudget: number;
  readonly counter: TokenCounter;
}

export interface SummaryPromptParts {
  readonly messages: readonly AgentMessage[];
  readonly previousSummary?: string;
  readonly additionalContext?: readonly string[];
  readonly instructions: string;
}

/** Custom instructions trimmed, or undefined when there are none. */
export function customInstructionsOf(customInstructions: string | undefined): string | undefined {
  const trimmed = customInstructions?.trim();
  return trimmed ? trimmed : undefined;
}

/** `{customInstructions}` for a request, or nothing. */
export function withCustomInstructions(customInstructions: string | undefined): {
  customInstructions?: string;
} {
  const trimmed = customInstructionsOf(customInstructions);
  return trimmed === undefined ? {} : { customInstructions: trimmed };
}

/** Appends the caller's focus to base instructions: "\n\nAdditional focus: <text>". */
export function withAdditionalFocus(instructions: string, customInstructions: string | undefined): string {
  const focus = customInstructionsOf(customInstructions);
  return focus !== undefined ? `${instructions}\n\nAdditional focus: ${focus}` : instructions;
}

function promptAround(conversation: string, parts: SummaryPromptParts): string {
  let prompt = `<conversation>\n${conversation}\n</conversation>\n\n`;
  if (parts.previousSummary !== undefined) {
    prompt += `<previous-summary>\n${parts.previousSummary}\n</previous-summary>\n\n`;
  }
  const context = parts.additionalContext ?? [];
  if (context.length > 0) {
    prompt += `<additional-context>\n${context.map((line) => `- ${line}`).join('\n')}\n</additional-context>\n\n`;
  }
  return prompt + parts.instructions;
}

/**
 * The user prompt for `parts`. With a budget, the transcript gets what remains of
 * `inputTokenBudget` after the system prompt and the rest of the prompt.
 */
export function buildSummaryPrompt(
  parts: SummaryPromptParts,
  systemPrompt: string,
  contextTemplates: ContextTemplates,
  budget?: InputBudget,
): string {
  const llmMessages = convertToLlm(parts.messages, contextTemplates);
  if (budget === undefined) return promptAround(serializeConversation(llmMessages), parts);
  const { counter, inputTokenBudget } = budget;
  const overhead = counter.countPieces([systemPrompt, promptAround('', parts)], 0);
  const conversation = serializeConversation(llmMessages, {
    maxTokens: Math.max(0, inputTokenBudget - overhead),
    counter,
  });
  return promptAround(conversation, parts);
}
