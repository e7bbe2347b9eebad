// The engine's own spans (issue 26, item 1), as children of whatever span is active (a request's
// server span, so that an append, an import or an attempt made for a request shares the
// caller's trace): `append entries`, `import session`, `compaction attempt` and `branch summary
// attempt`, with the session and attempt they are about. A span that ends in an error has status
// ERROR and `error.type`. Without the SDK (telemetry-sdk.ts) nothing is created: the work runs
// as it is.
import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { telemetryStarted } from './telemetry-sdk';

/** The instrumentation scope of every span and instrument the engine records. */
export const INSTRUMENTATION_SCOPE = 'strata-engine';

/** `error.type` of a failure: its stable code when it has one, else the error's class name. */
export function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') return code;
  if (error instanceof Error) return error.name;
  return '_OTHER';
}

/** Marks `span` failed with `error` (status ERROR, `error.type`, the message as the status description). */
export function recordFailure(span: Span, error: unknown): void {
  span.setAttribute('error.type', errorTypeOf(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

/**
 * Runs `work` inside a new internal span named `name` (the active span its parent), ending it
 * when the work settles; `resultAttributes` adds what the result tells. Without the SDK, just
 * runs the work.
 */
export async function inSpan<Result>(
  name: string,
  attributes: Attributes,
  work: () => Promise<Result>,
  resultAttributes?: (result: Result) => Attributes,
): Promise<Result> {
  if (!telemetryStarted()) return work();
  const tracer = trace.getTracer(INSTRUMENTATION_SCOPE);
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      const result = await work();
      if (resultAttributes !== undefined) span.setAttributes(resultAttributes(result));
      return result;
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** An append of entries to a session (the HTTP append, and the appends of hooks and clients). */
export function traceAppend<Result>(
  append: { readonly sessionId: string; readonly entries: readonly unknown[] },
  work: () => Promise<Result>,
): Promise<Result> {
  return inSpan(
    'append entries',
    { 'strata.session.id': append.sessionId, 'strata.entries.count': append.entries.length },
    work,
  );
}

/** A session file imported over HTTP: the session and what the import came to. */
export function traceImport<
  Result extends { readonly sessionId: string; readonly outcome: string; readonly appended: number },
>(work: () => Promise<Result>): Promise<Result> {
  return inSpan('import session', {}, work, (report) => ({
    'strata.session.id': report.sessionId,
    'strata.import.outcome': report.outcome,
    'strata.entries.count': report.appended,
  }));
}

/** A compaction or branch-summary attempt, from its start to its outcome (its summary calls within). */
export function traceAttempt<Result>(
  attempt: { readonly sessionId: string; readonly attemptId: string; readonly kind: string },
  work: () => Promise<Result>,
): Promise<Result> {
  const name = attempt.kind === 'compaction' ? 'compaction attempt' : 'branch summary attempt';
  return inSpan(
    name,
    {
      'strata.session.id': attempt.sessionId,
      'strata.attempt.id': attempt.attemptId,
      'strata.attempt.kind': attempt.kind,
    },
    work,
  );
}

/** The trace and span ids of the active span, for log lines; undefined when none is recording. */
export function activeSpanIds(): { traceId: string; spanId: string } | undefined {
  if (!telemetryStarted()) return undefined;
  const span = trace.getActiveSpan();
  if (span === undefined || !span.isRecording()) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}
