import { Registry } from 'prom-client';
import { SummarizerError, type AttemptFailure, type CandidateOutcome } from '@strata/summarizer';
import { ScriptedSummarizer, parsePrometheusText, sampleValue } from '@strata/testing';
import { SummarizerMetrics } from './summarizer-metrics';

function failure(summarizer: string, attempt: number, code: 'server_error' | 'rate_limited'): AttemptFailure {
  return {
    summarizer,
    attempt,
    error: new SummarizerError({ code, message: 'unavailable', summarizer }),
    next: { action: 'retry', delayMs: 10 },
    durationMs: 1500,
  };
}

function answer(name: string, attempt: number, model: string): CandidateOutcome {
  return {
    result: { text: 'summary', model, usage: { input: 120, output: 30 }, stopReason: 'stop' },
    summarizer: new ScriptedSummarizer({ name }),
    candidateIndex: 0,
    attempts: attempt + 1,
    attempt,
    durationMs: 250,
  };
}

describe('given a remote endpoint that failed twice and an Anthropic candidate that answered after a retry', () => {
  const registry = new Registry();
  const metrics = new SummarizerMetrics(registry);
  metrics.tryFailed(failure('remote-endpoint', 0, 'server_error'));
  metrics.tryFailed(failure('remote-endpoint', 1, 'rate_limited'));
  metrics.tryFailed(failure('anthropic:claude-test', 0, 'server_error'));
  metrics.answered(answer('anthropic:claude-test', 1, 'claude-test-2026'));

  const read = async () => parsePrometheusText(await registry.metrics());
  const remote = { provider: 'remote-endpoint', model: 'unknown' };

  it('counts every try, the retries among them and the failures by code', async () => {
    const exposition = await read();
    expect(sampleValue(exposition, 'strata_summarizer_calls_total', remote)).toBe(2);
    expect(sampleValue(exposition, 'strata_summarizer_retries_total', remote)).toBe(1);
    expect(
      sampleValue(exposition, 'strata_summarizer_errors_total', { ...remote, code: 'server_error' }),
    ).toBe(1);
    expect(
      sampleValue(exposition, 'strata_summarizer_errors_total', { ...remote, code: 'rate_limited' }),
    ).toBe(1);
  });

  it('labels the failed try by the model asked for and the answer by the model reported', async () => {
    const exposition = await read();
    const asked = { provider: 'anthropic', model: 'claude-test' };
    const reported = { provider: 'anthropic', model: 'claude-test-2026' };
    expect(
      sampleValue(exposition, 'strata_summarizer_errors_total', { ...asked, code: 'server_error' }),
    ).toBe(1);
    expect(sampleValue(exposition, 'strata_summarizer_calls_total', reported)).toBe(1);
    expect(sampleValue(exposition, 'strata_summarizer_retries_total', reported)).toBe(1);
    expect(
      sampleValue(exposition, 'strata_summarizer_errors_total', { ...reported, code: 'server_error' }),
    ).toBe(undefined);
  });

  it('adds the tokens the answers used, by type, and times every try', async () => {
    const exposition = await read();
    const reported = { provider: 'anthropic', model: 'claude-test-2026' };
    expect(sampleValue(exposition, 'strata_summarizer_tokens_total', { ...reported, type: 'input' })).toBe(
      120,
    );
    expect(sampleValue(exposition, 'strata_summarizer_tokens_total', { ...reported, type: 'output' })).toBe(
      30,
    );
    expect(sampleValue(exposition, 'strata_summarizer_call_duration_seconds_sum', remote)).toBe(3);
    expect(sampleValue(exposition, 'strata_summarizer_call_duration_seconds_count', reported)).toBe(1);
    expect(
      sampleValue(exposition, 'strata_summarizer_call_duration_seconds_bucket', { ...reported, le: '0.25' }),
    ).toBe(1);
  });

  it('counts usage a provider reported wrongly as no tokens, without throwing', async () => {
    const outcome = answer('anthropic:claude-test', 0, 'claude-test-2026');
    expect(() =>
      metrics.answered({ ...outcome, result: { ...outcome.result, usage: { input: -5, output: NaN } } }),
    ).not.toThrow();
    const exposition = await read();
    const reported = { provider: 'anthropic', model: 'claude-test-2026' };
    expect(sampleValue(exposition, 'strata_summarizer_calls_total', reported)).toBe(2);
    expect(sampleValue(exposition, 'strata_summarizer_tokens_total', { ...reported, type: 'input' })).toBe(
      120,
    );
    expect(sampleValue(exposition, 'strata_summarizer_tokens_total', { ...reported, type: 'output' })).toBe(
      30,
    );
  });
});
