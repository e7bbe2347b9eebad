// Summaries from any OpenAI-compatible Chat Completions server (OpenAI itself, or a local model
// server through `baseUrl`) via the official `openai` SDK: a system and a user message. The SDK's
// own retries are off (our candidate loop owns retries); no reasoning effort is sent unless
// configured (§11.1 defect 15 fixed).
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ReasoningEffort } from 'openai/resources/shared';
import { z } from 'zod';
import { headerLookupOf, httpFailureError } from '../errors/http-failure';
import { SummarizerError, abortedError, timedOutError, toSummarizerError } from '../errors/summarizer-error';
import { type GenerationEnd, acceptSummary } from '../summary-acceptance';
import type { Summarizer, SummaryRequest, SummaryResult } from '../summarizer.port';
import { DEFAULT_SUMMARY_TIMEOUT_MS, SDK_TIMEOUT_SLACK_MS, requestDeadline } from './request-deadline';

export interface OpenAiCompatibleSummarizerOptions {
  readonly apiKey: string;
  readonly model: string;
  /** The API root including `/v1`, for instance `http://127.0.0.1:8080/v1`; defaults to OpenAI's. */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
  /**
   * The request field that carries the output cap. `max_tokens` is what most compatible servers
   * read; OpenAI's reasoning models need `max_completion_tokens`.
   */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Sent only when set. */
  readonly reasoningEffort?: ReasoningEffort;
  /** Epoch milliseconds, for retry hints given as dates. */
  readonly now?: () => number;
  readonly name?: string;
}

/** The response fields we read; the SDK's types are not a guarantee about a server's body. */
const completionSchema = z.looseObject({
  model: z.string(),
  choices: z
    .array(
      z.looseObject({
        finish_reason: z.string().nullable(),
        message: z.looseObject({ content: z.string().nullable() }),
      }),
    )
    .min(1),
  usage: z.looseObject({ prompt_tokens: z.number(), completion_tokens: z.number() }).nullish(),
});

function generationEnd(finishReason: string | null): GenerationEnd {
  switch (finishReason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'refusal';
    case null:
    default:
      return 'incomplete';
  }
}

function defaultName(options: OpenAiCompatibleSummarizerOptions): string {
  if (options.baseUrl === undefined) return `openai:${options.model}`;
  return `openai-compatible:${options.model}@${new URL(options.baseUrl).host}`;
}

export class OpenAiCompatibleSummarizer implements Summarizer {
  readonly name: string;
  private readonly client: OpenAI;
  private readonly now: () => number;
  private readonly timeoutMs: number;

  constructor(private readonly options: OpenAiCompatibleSummarizerOptions) {
    this.name = options.name ?? defaultName(options);
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS;
    this.client = new OpenAI({
      apiKey: options.apiKey,
      ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
      timeout: this.timeoutMs + SDK_TIMEOUT_SLACK_MS,
      maxRetries: 0,
    });
  }

  async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
    const reasoningEffort = this.options.reasoningEffort;
    const deadline = requestDeadline(this.timeoutMs, signal);
    let response: unknown;
    try {
      response = await this.client.chat.completions.create(
        {
          model: request.model ?? this.options.model,
          messages: [
            { role: 'system', content: request.systemPrompt },
            { role: 'user', content: request.prompt },
          ],
          [this.options.maxTokensField ?? 'max_tokens']: request.maxTokens,
          ...(reasoningEffort === undefined ? {} : { reasoning_effort: reasoningEffort }),
        },
        { signal: deadline.signal },
      );
    } catch (error) {
      throw deadline.timedOut()
        ? timedOutError(this.name, this.timeoutMs, error)
        : this.mapError(error, signal);
    }
    return this.accept(response);
  }

  private accept(response: unknown): SummaryResult {
    const parsed = completionSchema.safeParse(response);
    if (!parsed.success) {
      throw new SummarizerError({
        code: 'malformed_response',
        message: 'Chat completion response has no choices',
        summarizer: this.name,
        cause: parsed.error,
      });
    }
    const completion = parsed.data;
    const choice = completion.choices[0];
    const usage = completion.usage;
    return acceptSummary({
      summarizer: this.name,
      text: choice?.message.content ?? '',
      end: generationEnd(choice?.finish_reason ?? null),
      providerStopReason: choice?.finish_reason ?? 'none',
      model: completion.model,
      ...(usage == null ? {} : { usage: { input: usage.prompt_tokens, output: usage.completion_tokens } }),
    });
  }

  private mapError(error: unknown, signal: AbortSignal | undefined): SummarizerError {
    if (signal?.aborted === true || error instanceof APIUserAbortError) return abortedError(this.name, error);
    if (error instanceof APIConnectionTimeoutError) {
      return new SummarizerError({
        code: 'timed_out',
        message: error.message,
        summarizer: this.name,
        cause: error,
      });
    }
    if (error instanceof APIConnectionError) {
      return new SummarizerError({
        code: 'connection_failed',
        message: error.message,
        summarizer: this.name,
        cause: error,
      });
    }
    if (error instanceof APIError && typeof error.status === 'number') {
      return httpFailureError({
        summarizer: this.name,
        status: error.status,
        message: error.message,
        detail: [error.code, error.type].filter((part) => typeof part === 'string').join(' '),
        headers: headerLookupOf(error.headers),
        now: this.now(),
        cause: error,
      });
    }
    return toSummarizerError(error, this.name, signal);
  }
}
