// The prompt texts the engine builds summary requests and contexts from (Markdown files in
// `prompts/`, loaded once by @strata/summarizer).
import { loadContextTemplates, loadSummaryTemplates } from '@strata/summarizer';
import type { ContextTemplates, SummaryTemplates } from '@strata/session';

export interface EngineTemplates {
  readonly summary: SummaryTemplates;
  readonly context: ContextTemplates;
}

export function loadEngineTemplates(promptsDirectory?: string): EngineTemplates {
  return {
    summary: loadSummaryTemplates(promptsDirectory),
    context: loadContextTemplates(promptsDirectory),
  };
}
