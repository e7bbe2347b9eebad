// Sends one domain summary request to the summariser candidates (retries, backoff, fallback and
// abort as in reference §5.5, through @strata/summarizer's candidate loop) and returns the text
// with who answered and what it cost.
import { Inject, Injectable, Logger } from '@nestjs/common';
import { summarizeWithCandidates, type Summarizer } from '@strata/summarizer';
import type { SummaryRequest, Usage } from '@strata/session';
import type { EngineSettings } from '../settings/engine-settings.schema';
import { ENGINE_SETTINGS, SUMMARIZER_CANDIDATES } from '../shared/injection-tokens';
import { toPortRequest, toSessionUsage } from './summary-request-adapter';

export interface SummaryAnswer {
  readonly text: string;
  /** The `name` of the summariser that answered. */
  readonly summarizer: string;
  readonly usage?: Usage;
  /** A short summary the summariser returned alongside (the remote endpoint may). */
  readonly shortSummary?: string;
}

export interface SummaryOptions {
  readonly signal: AbortSignal;
  /** A history request that merges into a previous summary. */
  readonly updatesPreviousSummary?: boolean;
}

@Injectable()
export class SummaryRunner {
  private readonly logger = new Logger('SummaryRunner');

  constructor(
    @Inject(SUMMARIZER_CANDIDATES) private readonly candidates: readonly Summarizer[],
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
  ) {}

  /** The first candidate's name: the model an attempt expects to use. */
  get intendedSummarizer(): string | undefined {
    return this.candidates[0]?.name;
  }

  /** Rejects with a `SummarizerError` (kind `aborted` once the signal aborts). */
  async summarize(request: SummaryRequest, options: SummaryOptions): Promise<SummaryAnswer> {
    const outcome = await summarizeWithCandidates(
      this.candidates,
      toPortRequest(request, { updatesPreviousSummary: options.updatesPreviousSummary === true }),
      {
        signal: options.signal,
        retry: this.settings.summarizer.retry,
        onAttemptFailed: (failure) =>
          this.logger.warn(
            `${request.purpose} summary by ${failure.summarizer} failed (attempt ${failure.attempt + 1}, ` +
              `${failure.error.code}): ${failure.error.message}; next: ${failure.next.action}`,
          ),
      },
    );
    const { result, summarizer } = outcome;
    return {
      text: result.text,
      summarizer: summarizer.name,
      ...(result.usage !== undefined ? { usage: toSessionUsage(result.usage) } : {}),
      ...(result.shortSummary !== undefined ? { shortSummary: result.shortSummary } : {}),
    };
  }
}
