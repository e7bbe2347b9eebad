// Summaries from Anthropic's Messages API through the official SDK: the system prompt plus one
// user message, `max_tokens` from the request. The SDK's own retries are off (our candidate loop
// owns retries) and no thinking option is sent unless configured (§11.1 defect 15 fixed).
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import type { ThinkingConfigParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { z } from 'zod';
import { headerLookupOf, httpFailureError } from '../errors/http-failure';
import { SummarizerError, abortedError, timedOutError, toSummarizerError } from '../errors/summarizer-error';
import { type GenerationEnd, acceptSummary } from '../summary-acceptance';
import type { Summarizer, SummaryRequest, SummaryResult } from '../summarizer.port';
import { DEFAULT_SUMMARY_TIMEOUT_MS, SDK_TIMEOUT_SLACK_MS, requestDeadline } from './request-deadline';

export interface AnthropicSummarizerOptions {
  readonly apiKey: string;
  readonly model: string;
  /** Defaults to the SDK's (Anthropic's public API). */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
  /**
   * Sent only when set. With budget-style thinking, the budget is added on top of the request's
   * `maxTokens`, so thinking never eats the summary's output allowance.
   */
  readonly thinking?: ThinkingConfigParam;
  /** Epoch milliseconds, for retry hints given as dates. */
  readonly now?: () => number;
  readonly name?: string;
}

/** The response fields we read; the SDK's types are not a guarantee about a server's body. */
const messageSchema = z.looseObject({
  model: z.string(),
  content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
  stop_reason: z.string().nullable(),
  usage: z
    .looseObject({
      input_tokens: z.number(),
      output_tokens: z.number(),
      cache_read_input_tokens: z.number().nullish(),
      cache_creation_input_tokens: z.number().nullish(),
    })
    .optional(),
});

function generationEnd(stopReason: string | null): GenerationEnd {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'refusal':
      return 'refusal';
    case 'model_context_window_exceeded':
      return 'context_overflow';
    case null:
    default:
      return 'incomplete';
  }
}

export class AnthropicSummarizer implements Summarizer {
  readonly name: string;
  private readonly client: Anthropic;
  private readonly now: () => number;
  private readonly timeoutMs: number;

  constructor(private readonly options: AnthropicSummarizerOptions) {
    this.name = options.name ?? `anthropic:${options.model}`;
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS;
    this.client = new Anthropic({
      apiKey: options.apiKey,
      ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
      timeout: this.timeoutMs + SDK_TIMEOUT_SLACK_MS,
      maxRetries: 0,
    });
  }

  async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
    const thinking = this.options.thinking;
    const thinkingBudget = thinking?.type === 'enabled' ? thinking.budget_tokens : 0;
    const deadline = requestDeadline(this.timeoutMs, signal);
    let response: unknown;
    try {
      response = await this.client.messages.create(
        {
          model: request.model ?? this.options.model,
          max_tokens: request.maxTokens + thinkingBudget,
          system: request.systemPrompt,
          messages: [{ role: 'user', content: request.prompt }],
          ...(thinking === undefined ? {} : { thinking }),
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
    const parsed = messageSchema.safeParse(response);
    if (!parsed.success) {
      throw new SummarizerError({
        code: 'malformed_response',
        message: 'Anthropic response is not a message',
        summarizer: this.name,
        cause: parsed.error,
      });
    }
    const message = parsed.data;
    const text = message.content
      .filter((block) => block.type === 'text')
      .map((block) => block.text ?? '')
      .join('\n');
    const usage = message.usage;
    return acceptSummary({
      summarizer: this.name,
      text,
      end: generationEnd(message.stop_reason),
      providerStopReason: message.stop_reason ?? 'none',
      model: message.model,
      ...(usage === undefined
        ? {}
        : {
            usage: {
              input:
                usage.input_tokens +
                (usage.cache_read_input_tokens ?? 0) +
                (usage.cache_creation_input_tokens ?? 0),
              output: usage.output_tokens,
            },
          }),
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
        headers: headerLookupOf(error.headers),
        now: this.now(),
        cause: error,
      });
    }
    return toSummarizerError(error, this.name, signal);
  }
}
