// The `compaction.remoteEndpoint` provider (reference §5.4): POST `{systemPrompt, prompt}` as JSON,
// read `{summary, shortSummary?, model?, usage?: {input, output}}` back. Unlike the reference it
// can send an auth header and it honours the caller's abort signal and a timeout (§11.1 defect 12
// fixed). The model the endpoint names is the result's model (the summariser's name when it names
// none); optional fields it sends in another shape are ignored, never fatal.
import { z } from 'zod';
import { httpFailureError } from '../errors/http-failure';
import { SummarizerError, timedOutError, toSummarizerError } from '../errors/summarizer-error';
import { acceptSummary } from '../summary-acceptance';
import type { Summarizer, SummaryRequest, SummaryResult } from '../summarizer.port';
import { DEFAULT_SUMMARY_TIMEOUT_MS, requestDeadline } from './request-deadline';

export interface RemoteEndpointSummarizerOptions {
  readonly url: string;
  /** A header sent with every request, for instance `{ name: 'Authorization', value: 'Bearer …' }`. */
  readonly authHeader?: { readonly name: string; readonly value: string };
  /** Per-request timeout; defaults to five minutes. */
  readonly timeoutMs?: number;
  /** Epoch milliseconds, for retry hints given as dates. */
  readonly now?: () => number;
  readonly name?: string;
}

/** The longest model name taken from an endpoint's answer. */
const MAX_MODEL_NAME_LENGTH = 200;
const tokenCount = z.number().int().nonnegative();

const remoteSummarySchema = z.looseObject({
  summary: z.string(),
  shortSummary: z.string().optional().catch(undefined),
  model: z.string().min(1).max(MAX_MODEL_NAME_LENGTH).optional().catch(undefined),
  usage: z.object({ input: tokenCount, output: tokenCount }).optional().catch(undefined),
});

/** Characters of an error body quoted in the error message. */
const QUOTED_BODY_LIMIT = 500;

export class RemoteEndpointSummarizer implements Summarizer {
  readonly name: string;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(private readonly options: RemoteEndpointSummarizerOptions) {
    this.name = options.name ?? 'remote-endpoint';
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
  }

  async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
    const deadline = requestDeadline(this.timeoutMs, signal);
    try {
      const response = await fetch(this.options.url, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify({ systemPrompt: request.systemPrompt, prompt: request.prompt }),
        signal: deadline.signal,
      });
      const body = await response.text();
      if (!response.ok) {
        throw httpFailureError({
          summarizer: this.name,
          status: response.status,
          message: `Remote compaction failed (${response.status} ${response.statusText})`,
          detail: body.slice(0, QUOTED_BODY_LIMIT),
          headers: response.headers,
          now: this.now(),
        });
      }
      return this.parse(body);
    } catch (error) {
      if (deadline.timedOut()) throw timedOutError(this.name, this.timeoutMs, error);
      throw toSummarizerError(error, this.name, signal);
    }
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.authHeader !== undefined)
      headers[this.options.authHeader.name] = this.options.authHeader.value;
    return headers;
  }

  private parse(body: string): SummaryResult {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (error) {
      throw new SummarizerError({
        code: 'malformed_response',
        message: 'Remote compaction response is not JSON',
        summarizer: this.name,
        cause: error,
      });
    }
    const parsed = remoteSummarySchema.safeParse(json);
    if (!parsed.success) {
      throw new SummarizerError({
        code: 'missing_summary',
        message: 'Remote compaction response missing summary',
        summarizer: this.name,
        cause: parsed.error,
      });
    }
    const { summary, shortSummary, model, usage } = parsed.data;
    return acceptSummary({
      summarizer: this.name,
      text: summary,
      end: 'unreported',
      model: model ?? this.name,
      ...(usage === undefined ? {} : { usage: { input: usage.input, output: usage.output } }),
      ...(shortSummary === undefined ? {} : { shortSummary }),
    });
  }
}
