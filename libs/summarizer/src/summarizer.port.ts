// The summariser port (DESIGN.md decision 7): one injected function that turns an assembled
// summary prompt into summary text. Providers (remote endpoint, Anthropic, OpenAI-compatible,
// offline extractive) implement it; the engine never talks to a model any other way.

/** What a summary is for; it selects the prompt on the caller's side and the section set offline. */
export type SummaryPurpose = 'history' | 'update' | 'turn_prefix' | 'short' | 'branch';

export interface SummaryRequest {
  readonly purpose: SummaryPurpose;
  /** The summarisation system prompt. */
  readonly systemPrompt: string;
  /** The single user message: `<conversation>…</conversation>`, optional blocks, then the instructions. */
  readonly prompt: string;
  /** Upper bound on the summary's output tokens. */
  readonly maxTokens: number;
  /** Overrides the provider's configured model for this call. */
  readonly model?: string;
  /**
   * The caller's custom instructions (`/compact <text>`, a navigation's), already part of
   * `prompt`. Providers that send the prompt to a model need not read it; the offline summariser,
   * which follows no instructions, says so and lists the facts that mention their words.
   */
  readonly customInstructions?: string;
}

/**
 * How generation ended for an accepted summary. Truncated (`length`), refused or empty answers
 * are never results: providers turn them into `invalid_response` errors. `unreported` is for
 * providers whose wire format carries no stop reason (the remote endpoint, the offline summariser).
 */
export type SummaryStopReason = 'stop' | 'unreported';

export interface SummaryUsage {
  readonly input: number;
  readonly output: number;
}

export interface SummaryResult {
  /** The summary, never empty. */
  readonly text: string;
  /** The model that produced it, as the provider reports it. */
  readonly model: string;
  readonly usage?: SummaryUsage;
  readonly stopReason: SummaryStopReason;
  /** A short summary the provider returned alongside (only the remote endpoint's `shortSummary`). */
  readonly shortSummary?: string;
}

/**
 * Contract:
 * - `name` identifies the provider and model; candidate lists de-duplicate on it.
 * - `summarize` resolves with a non-empty, complete summary, or rejects with a `SummarizerError`
 *   (never another error type), whose `kind` tells the caller whether retrying can help.
 * - When `signal` aborts, the call stops promptly and rejects with kind `aborted`.
 * - A provider sends no reasoning/thinking options unless it was configured to.
 */
export interface Summarizer {
  readonly name: string;
  summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult>;
}
