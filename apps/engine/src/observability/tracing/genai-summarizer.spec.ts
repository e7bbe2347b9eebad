// The GenAI client span and metrics of one summariser call, recorded by the OpenTelemetry SDK's
// own in-memory exporter and a manual metric reader around a scripted summariser.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { metrics, tracing } from '@opentelemetry/sdk-node';
import { SummarizerError, type SummaryRequest } from '@strata/summarizer';
import { ScriptedSummarizer } from '@strata/testing';
import { GenAiTracedSummarizer, contentCaptureRequested, type GenAiTarget } from './genai-summarizer';

const request: SummaryRequest = {
  purpose: 'history',
  systemPrompt: 'You summarise coding sessions.',
  prompt: '<conversation>secret plans for the parser</conversation>',
  maxTokens: 2048,
};

const anthropic: GenAiTarget = {
  provider: 'anthropic',
  model: 'claude-test',
  baseUrl: 'http://127.0.0.1:4100',
};

class ManualReader extends metrics.MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function recorded(captureContent = false) {
  const exporter = new tracing.InMemorySpanExporter();
  const tracerProvider = new tracing.BasicTracerProvider({
    spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
  });
  const reader = new ManualReader();
  const meterProvider = new metrics.MeterProvider({ readers: [reader] });
  const traced = (inner: ScriptedSummarizer, target = anthropic) =>
    new GenAiTracedSummarizer(inner, target, {
      tracer: tracerProvider.getTracer('test'),
      meter: meterProvider.getMeter('test'),
      captureContent,
    });
  const histogram = async (name: string) => {
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((candidate) => candidate.descriptor.name === name);
    return metric;
  };
  return { exporter, traced, histogram };
}

describe('a summariser call with GenAI telemetry', () => {
  it('is a CLIENT span "chat {model}" with the request, response and usage attributes', async () => {
    const { exporter, traced } = recorded();
    const inner = new ScriptedSummarizer({
      name: 'anthropic:claude-test',
      reply: () => ({
        text: 'A summary',
        model: 'claude-test-2026',
        stopReason: 'stop',
        usage: { input: 120, output: 30 },
      }),
    });

    await traced(inner).summarize(request);

    const [span, ...others] = exporter.getFinishedSpans();
    expect(others).toHaveLength(0);
    expect(span?.name).toBe('chat claude-test');
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-test',
      'gen_ai.request.max_tokens': 2048,
      'gen_ai.response.model': 'claude-test-2026',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'server.address': '127.0.0.1',
      'server.port': 4100,
      'strata.summary.purpose': 'history',
      'strata.summarizer.name': 'anthropic:claude-test',
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('names the model the request asks for over the configured one', async () => {
    const { exporter, traced } = recorded();
    await traced(new ScriptedSummarizer()).summarize({ ...request, model: 'claude-other' });
    expect(exporter.getFinishedSpans()[0]?.attributes['gen_ai.request.model']).toBe('claude-other');
    expect(exporter.getFinishedSpans()[0]?.name).toBe('chat claude-other');
  });

  it('is named "chat" alone when no model is known (the remote endpoint)', async () => {
    const { exporter, traced } = recorded();
    await traced(new ScriptedSummarizer(), {
      provider: 'strata.remote',
      baseUrl: 'https://summary.example/x',
    }).summarize(request);
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('chat');
    expect(span?.attributes).toMatchObject({ 'server.address': 'summary.example', 'server.port': 443 });
    expect(span?.attributes['gen_ai.request.model']).toBeUndefined();
  });

  it('marks a failed call ERROR with the summariser error code as error.type, and rethrows it', async () => {
    const { exporter, traced, histogram } = recorded();
    const failure = new SummarizerError({
      code: 'rate_limited',
      message: 'slow down',
      summarizer: 'anthropic:claude-test',
    });
    const inner = new ScriptedSummarizer({ reply: () => failure });

    await expect(traced(inner).summarize(request)).rejects.toBe(failure);

    const [span] = exporter.getFinishedSpans();
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'slow down' });
    expect(span?.attributes['error.type']).toBe('rate_limited');
    expect(span?.attributes['gen_ai.response.model']).toBeUndefined();
    const duration = await histogram('gen_ai.client.operation.duration');
    expect(duration?.dataPoints.map((point) => point.attributes['error.type'])).toEqual(['rate_limited']);
    expect(await histogram('gen_ai.client.token.usage')).toBeUndefined();
  });

  it('records no prompt, system prompt or summary unless content capture is asked for', async () => {
    const quiet = recorded(false);
    await quiet.traced(new ScriptedSummarizer({ reply: () => 'the summary text' })).summarize(request);
    const quietSpan = quiet.exporter.getFinishedSpans()[0];
    expect(JSON.stringify(quietSpan?.attributes)).not.toMatch(
      /secret plans|summarise coding|the summary text/,
    );

    const loud = recorded(true);
    await loud.traced(new ScriptedSummarizer({ reply: () => 'the summary text' })).summarize(request);
    const attributes = loud.exporter.getFinishedSpans()[0]?.attributes ?? {};
    expect(JSON.parse(String(attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: request.prompt }] },
    ]);
    expect(JSON.parse(String(attributes['gen_ai.system_instructions']))).toEqual([
      { type: 'text', content: request.systemPrompt },
    ]);
    expect(String(attributes['gen_ai.output.messages'])).toContain('the summary text');
  });

  it('records the duration and the input and output tokens in the GenAI histograms', async () => {
    const { traced, histogram } = recorded();
    const inner = new ScriptedSummarizer({
      reply: () => ({
        text: 'A summary',
        model: 'claude-test',
        stopReason: 'stop',
        usage: { input: 120, output: 30 },
      }),
    });
    await traced(inner).summarize(request);

    const tokens = await histogram('gen_ai.client.token.usage');
    expect(tokens?.descriptor.unit).toBe('{token}');
    const byType = Object.fromEntries(
      (tokens?.dataPoints ?? []).map((point) => [point.attributes['gen_ai.token.type'], point.value]),
    );
    expect(byType['input']).toMatchObject({ count: 1, sum: 120 });
    expect(byType['output']).toMatchObject({ count: 1, sum: 30 });
    expect(tokens?.dataPoints[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-test',
      'gen_ai.response.model': 'claude-test',
    });
    const duration = await histogram('gen_ai.client.operation.duration');
    expect(duration?.descriptor.unit).toBe('s');
    expect(duration?.dataPoints).toHaveLength(1);
    expect(duration?.dataPoints[0]?.value).toMatchObject({ count: 1 });
  });
});

describe('content capture', () => {
  it('is on only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is true', () => {
    expect(contentCaptureRequested({})).toBe(false);
    expect(contentCaptureRequested({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false' })).toBe(
      false,
    );
    expect(contentCaptureRequested({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE' })).toBe(
      true,
    );
  });
});
