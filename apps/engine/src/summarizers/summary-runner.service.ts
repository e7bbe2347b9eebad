// Sends one domain summary request to the summariser candidates (retries, backoff, fallback and
// abort as in reference §5.5, through @strata/summarizer's candidate loop) and returns the text
// with who answered (the candidate, and the model its provider reported) and what it cost. Every
// try, answered or failed, is timed on the engine's clock, written to the attempt's call log and
// told to the call observer (the metrics) when the engine has one.
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { summarizeWithCandidates, type Summarizer } from '@strata/summarizer';
import type { SummaryRequest, Usage } from '@strata/session';
import type { EngineSettings } from '../settings/engine-settings.schema';
import type { Clock } from '../shared/clock';
import { CLOCK, ENGINE_SETTINGS, SUMMARIZER_CANDIDATES } from '../shared/injection-tokens';
import { SUMMARY_CALL_OBSERVER, type SummaryCallObserver } from '../observability/summary-call-observer';
import { recordedModelName, type SummaryCallLog } from './summary-calls';
import { toPortRequest, toSessionUsage } from './summary-request-adapter';

export interface SummaryAnswer {
  readonly text: string;
  /** The `name` of the summariser (the candidate) that answered. */
  readonly summarizer: string;
  /** The model that answered, as its provider reported it. */
  readonly model: string;
  readonly usage?: Usage;
  /** A short summary the summariser returned alongside (the remote endpoint may). */
  readonly shortSummary?: string;
}

export interface SummaryOptions {
  readonly signal: AbortSignal;
  /** A history request that merges into a previous summary. */
  readonly updatesPreviousSummary?: boolean;
  /** The attempt's log: told of every try, answered or failed. */
  readonly calls?: SummaryCallLog;
}

@Injectable()
export class SummaryRunner {
  private readonly logger = new Logger('SummaryRunner');

  constructor(
    @Inject(SUMMARIZER_CANDIDATES) private readonly candidates: readonly Summarizer[],
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(SUMMARY_CALL_OBSERVER) private readonly observer?: SummaryCallObserver,
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
        now: () => this.clock.now(),
        onAttemptFailed: (failure) => {
          this.observer?.tryFailed(failure);
          this.logger.warn(
            `${request.purpose} summary by ${failure.summarizer} failed (attempt ${failure.attempt + 1}, ` +
              `${failure.error.code}): ${failure.error.message}; next: ${failure.next.action}`,
          );
          options.calls?.record({
            purpose: request.purpose,
            summarizer: failure.summarizer,
            retry: failure.attempt,
            durationMs: failure.durationMs,
            error: { message: failure.error.message, code: failure.error.code },
          });
        },
      },
    );
    this.observer?.answered(outcome);
    const { result, summarizer } = outcome;
    const usage = result.usage !== undefined ? toSessionUsage(result.usage) : undefined;
    options.calls?.record({
      purpose: request.purpose,
      summarizer: summarizer.name,
      retry: outcome.attempt,
      model: result.model,
      ...(usage !== undefined ? { usage } : {}),
      durationMs: outcome.durationMs,
    });
    return {
      text: result.text,
      summarizer: summarizer.name,
      model: recordedModelName(result.model),
      ...(usage !== undefined ? { usage } : {}),
      ...(result.shortSummary !== undefined ? { shortSummary: result.shortSummary } : {}),
    };
  }
}
