// The summariser's calls by provider and model (summarizer-labels.ts): every try, the retries
// among them, the failed ones by error code (the closed set of @strata/summarizer), their
// duration, and the tokens the answers used. The summary runner reports to it as its
// SummaryCallObserver.
import type { Registry } from 'prom-client';
import type { AttemptFailure, CandidateOutcome } from '@strata/summarizer';
import type { SummaryCallObserver } from './summary-call-observer';
import { CounterFamily, HistogramFamily } from './metric-families';
import { SummarizerLabeller, type SummarizerLabels } from './summarizer-labels';

/** Seconds: from a local model's quick answer to a slow remote one near its timeout. */
const CALL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

type CallLabel = keyof SummarizerLabels;

/** A count or duration a provider or clock reported, as one a metric takes (never negative, never NaN). */
function nonNegative(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

export class SummarizerMetrics implements SummaryCallObserver {
  private readonly labeller = new SummarizerLabeller();
  private readonly calls: CounterFamily<CallLabel>;
  private readonly retries: CounterFamily<CallLabel>;
  private readonly errors: CounterFamily<CallLabel | 'code'>;
  private readonly tokens: CounterFamily<CallLabel | 'type'>;
  private readonly duration: HistogramFamily<CallLabel>;

  constructor(registry: Registry) {
    const labelNames: CallLabel[] = ['provider', 'model'];
    this.calls = new CounterFamily(registry, {
      name: 'strata_summarizer_calls_total',
      help: 'Summariser calls (every try, retries included) ended, answered or failed, by provider and model.',
      labelNames,
    });
    this.retries = new CounterFamily(registry, {
      name: 'strata_summarizer_retries_total',
      help: 'Summariser calls that repeated a failed call to the same candidate, by provider and model.',
      labelNames,
    });
    this.errors = new CounterFamily(registry, {
      name: 'strata_summarizer_errors_total',
      help: 'Summariser calls that failed, by provider, model and error code (rate_limited, server_error, timed_out, context_overflow…).',
      labelNames: [...labelNames, 'code'],
    });
    this.tokens = new CounterFamily(registry, {
      name: 'strata_summarizer_tokens_total',
      help: 'Tokens the answered summariser calls used as their providers reported them, by provider, model and type (input, output).',
      labelNames: [...labelNames, 'type'],
    });
    this.duration = new HistogramFamily(registry, {
      name: 'strata_summarizer_call_duration_seconds',
      help: 'Duration of summariser calls, answered or failed (the backoff between tries not included), by provider and model.',
      labelNames,
      buckets: CALL_BUCKETS,
    });
  }

  tryFailed(failure: AttemptFailure): void {
    const labels = this.labeller.labelsOf(failure.summarizer);
    this.callEnded(labels, failure.attempt, failure.durationMs);
    this.errors.increment({ ...labels, code: failure.error.code });
  }

  answered(outcome: CandidateOutcome): void {
    const { result } = outcome;
    const labels = this.labeller.labelsOf(outcome.summarizer.name, result.model);
    this.callEnded(labels, outcome.attempt, outcome.durationMs);
    if (result.usage !== undefined) {
      this.tokens.increment({ ...labels, type: 'input' }, nonNegative(result.usage.input));
      this.tokens.increment({ ...labels, type: 'output' }, nonNegative(result.usage.output));
    }
  }

  private callEnded(labels: SummarizerLabels, attempt: number, durationMs: number): void {
    this.calls.increment(labels);
    if (attempt > 0) this.retries.increment(labels);
    this.duration.observe(labels, nonNegative(durationMs) / 1000);
  }
}
