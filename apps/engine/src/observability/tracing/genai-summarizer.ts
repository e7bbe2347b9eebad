// Each summariser call as a GenAI client span, with the GenAI metrics (issue 26, item 1), after
// the OpenTelemetry GenAI semantic conventions: a CLIENT span `chat {gen_ai.request.model}` per
// try (a retry is a span of its own) with the operation, the provider, the requested and the
// answering model, the output token bound, the token usage and the finish reason, `error.type`
// and status ERROR when the try fails; and the `gen_ai.client.operation.duration` (s) and
// `gen_ai.client.token.usage` ({token}, by `gen_ai.token.type`) histograms. Prompts and
// summaries are recorded only when `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
import {
  SpanKind,
  metrics,
  trace,
  type Attributes,
  type Histogram,
  type Meter,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { Summarizer, SummaryRequest, SummaryResult } from '@strata/summarizer';
import { INSTRUMENTATION_SCOPE, errorTypeOf, recordFailure } from './engine-spans';
import { telemetryStarted } from './telemetry-sdk';

type Environment = Readonly<Record<string, string | undefined>>;

/** Who a summariser talks to, in the conventions' terms. */
export interface GenAiTarget {
  /** `gen_ai.provider.name`: `anthropic`, `openai`, or Strata's own `strata.offline`, `strata.remote`. */
  readonly provider: string;
  /** The model the summariser is configured with (a request may name another). */
  readonly model?: string;
  /** The provider's base URL, for `server.address` and `server.port`. */
  readonly baseUrl?: string;
}

/** The variable of the GenAI conventions that lets spans carry prompts and answers. */
export const CAPTURE_CONTENT_VARIABLE = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';

/** The conventions' advised bucket boundaries. */
const DURATION_BUCKETS_SECONDS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

export interface GenAiTelemetry {
  readonly tracer: Tracer;
  readonly meter: Meter;
  /** Whether spans carry the system prompt, the prompt and the summary (off by default). */
  readonly captureContent: boolean;
}

/** Whether the environment opts in to prompts and summaries on spans. */
export function contentCaptureRequested(environment: Environment): boolean {
  return (environment[CAPTURE_CONTENT_VARIABLE] ?? '').trim().toLowerCase() === 'true';
}

function serverAttributes(baseUrl: string | undefined): Attributes {
  if (baseUrl === undefined) return {};
  const url = new URL(baseUrl);
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { 'server.address': url.hostname, 'server.port': port };
}

function contentAttributes(request: SummaryRequest): Attributes {
  return {
    'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: request.systemPrompt }]),
    'gen_ai.input.messages': JSON.stringify([
      { role: 'user', parts: [{ type: 'text', content: request.prompt }] },
    ]),
  };
}

function outputAttributes(result: SummaryResult): Attributes {
  return {
    'gen_ai.output.messages': JSON.stringify([
      {
        role: 'assistant',
        parts: [{ type: 'text', content: result.text }],
        ...(result.stopReason === 'stop' ? { finish_reason: 'stop' } : {}),
      },
    ]),
  };
}

/** A summariser whose every call is a GenAI client span and counts in the GenAI metrics. */
export class GenAiTracedSummarizer implements Summarizer {
  readonly name: string;
  private readonly duration: Histogram;
  private readonly tokens: Histogram;

  constructor(
    private readonly inner: Summarizer,
    private readonly target: GenAiTarget,
    private readonly telemetry: GenAiTelemetry,
  ) {
    this.name = inner.name;
    this.duration = telemetry.meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'GenAI operation duration',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_SECONDS },
    });
    this.tokens = telemetry.meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Number of input and output tokens used',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
  }

  async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
    const requestModel = request.model ?? this.target.model;
    const common: Attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': this.target.provider,
      ...(requestModel !== undefined ? { 'gen_ai.request.model': requestModel } : {}),
      ...serverAttributes(this.target.baseUrl),
    };
    const spanName = requestModel !== undefined ? `chat ${requestModel}` : 'chat';
    const attributes: Attributes = {
      ...common,
      'gen_ai.request.max_tokens': request.maxTokens,
      'strata.summary.purpose': request.purpose,
      'strata.summarizer.name': this.inner.name,
      ...(this.telemetry.captureContent ? contentAttributes(request) : {}),
    };
    return this.telemetry.tracer.startActiveSpan(
      spanName,
      { kind: SpanKind.CLIENT, attributes },
      async (span) => {
        const started = performance.now();
        const seconds = (): number => (performance.now() - started) / 1000;
        try {
          const result = await this.inner.summarize(request, signal);
          this.recordAnswer(span, result, common, seconds());
          return result;
        } catch (error) {
          recordFailure(span, error);
          this.duration.record(seconds(), { ...common, 'error.type': errorTypeOf(error) });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }

  private recordAnswer(span: Span, result: SummaryResult, common: Attributes, seconds: number): void {
    const answered: Attributes = { ...common, 'gen_ai.response.model': result.model };
    span.setAttributes({
      'gen_ai.response.model': result.model,
      ...(result.stopReason === 'stop' ? { 'gen_ai.response.finish_reasons': ['stop'] } : {}),
      ...(result.usage !== undefined
        ? {
            'gen_ai.usage.input_tokens': result.usage.input,
            'gen_ai.usage.output_tokens': result.usage.output,
          }
        : {}),
      ...(this.telemetry.captureContent ? outputAttributes(result) : {}),
    });
    this.duration.record(seconds, answered);
    if (result.usage !== undefined) {
      this.tokens.record(result.usage.input, { ...answered, 'gen_ai.token.type': 'input' });
      this.tokens.record(result.usage.output, { ...answered, 'gen_ai.token.type': 'output' });
    }
  }
}

/**
 * `summarizer` with GenAI spans and metrics when the SDK has started; itself otherwise (nothing
 * is paid when telemetry is off).
 */
export function withGenAiTelemetry(
  summarizer: Summarizer,
  target: GenAiTarget,
  environment: Environment,
): Summarizer {
  if (!telemetryStarted()) return summarizer;
  return new GenAiTracedSummarizer(summarizer, target, {
    tracer: trace.getTracer(INSTRUMENTATION_SCOPE),
    meter: metrics.getMeter(INSTRUMENTATION_SCOPE),
    captureContent: contentCaptureRequested(environment),
  });
}
