import { SummarizerError } from '../errors/summarizer-error';
import type { SummaryRequest } from '../summarizer.port';
import { LoopbackServer, hangReply, jsonReply, textReply } from '../testing/loopback-server';
import {
  OpenAiCompatibleSummarizer,
  type OpenAiCompatibleSummarizerOptions,
} from './openai-compatible-summarizer';

const request: SummaryRequest = {
  purpose: 'short',
  systemPrompt: 'You summarise conversations.',
  prompt: '<conversation>\n[User]: rename the flag\n</conversation>\n\nSummarise in two sentences.',
  maxTokens: 512,
};

function completion(content: string | null, finishReason: string, extra: Record<string, unknown> = {}) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_760_000_000,
    model: 'local-model-q4',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: finishReason,
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 },
    ...extra,
  };
}

function apiError(message: string, type: string, code: string | null = null) {
  return { error: { message, type, param: null, code } };
}

async function failureOf(promise: Promise<unknown>): Promise<SummarizerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SummarizerError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('the OpenAI-compatible summariser, through the real SDK against a local chat-completions server', () => {
  let server: LoopbackServer;

  beforeEach(async () => {
    server = await LoopbackServer.start();
  });

  afterEach(async () => {
    await server.close();
  });

  function summarizer(options: Partial<OpenAiCompatibleSummarizerOptions> = {}) {
    return new OpenAiCompatibleSummarizer({
      apiKey: 'local',
      model: 'local-model',
      baseUrl: `${server.origin}/v1`,
      ...options,
    });
  }

  describe('given a normal answer', () => {
    beforeEach(() => server.script(jsonReply(200, completion('I renamed the flag.', 'stop'))));

    it('sends a system and a user message with max_tokens, and returns the content', async () => {
      const result = await summarizer().summarize(request);
      expect(result).toEqual({
        text: 'I renamed the flag.',
        model: 'local-model-q4',
        stopReason: 'stop',
        usage: { input: 300, output: 40 },
      });
      expect(server.requests[0]?.path).toBe('/v1/chat/completions');
      expect(server.requests[0]?.headers.authorization).toBe('Bearer local');
      expect(server.jsonBody(0)).toEqual({
        model: 'local-model',
        messages: [
          { role: 'system', content: request.systemPrompt },
          { role: 'user', content: request.prompt },
        ],
        max_tokens: 512,
      });
    });

    // Reference §11.1 defect 15: upstream always asks for high reasoning on summary calls.
    it('sends no reasoning effort unless configured, and the configured one otherwise', async () => {
      await summarizer().summarize(request);
      await summarizer({ reasoningEffort: 'low', maxTokensField: 'max_completion_tokens' }).summarize(
        request,
      );
      expect(server.jsonBody(0)).not.toHaveProperty('reasoning_effort');
      expect(server.jsonBody(1)).toMatchObject({ reasoning_effort: 'low', max_completion_tokens: 512 });
      expect(server.jsonBody(1)).not.toHaveProperty('max_tokens');
    });

    it('is named after its model and server so candidate lists can tell servers apart', () => {
      expect(summarizer().name).toBe(`openai-compatible:local-model@${new URL(server.origin).host}`);
    });
  });

  describe('given an answer that is not a usable summary', () => {
    // Reference §11.1 defect 14.
    it('rejects finish_reason length as truncated', async () => {
      server.script(jsonReply(200, completion('I renamed the', 'length')));
      expect(await failureOf(summarizer().summarize(request))).toMatchObject({ code: 'truncated' });
    });

    it('rejects null content as empty', async () => {
      server.script(jsonReply(200, completion(null, 'stop')));
      expect((await failureOf(summarizer().summarize(request))).code).toBe('empty_summary');
    });

    it('rejects a completion without choices as malformed', async () => {
      server.script(jsonReply(200, completion('x', 'stop', { choices: [] })));
      expect((await failureOf(summarizer().summarize(request))).code).toBe('malformed_response');
    });

    it('rejects a body that is not JSON', async () => {
      server.script(textReply(200, 'not json at all', { 'content-type': 'application/json' }));
      expect((await failureOf(summarizer().summarize(request))).kind).toBe('invalid_response');
    });

    it('rejects a content-filter stop as refused', async () => {
      server.script(jsonReply(200, completion('', 'content_filter')));
      expect((await failureOf(summarizer().summarize(request))).code).toBe('refused');
    });
  });

  describe('given an error response', () => {
    it('maps 429 with retry-after-ms to retryable, and does not retry inside the SDK', async () => {
      server.script(
        jsonReply(429, apiError('Rate limit reached', 'requests', 'rate_limit_exceeded'), {
          'retry-after-ms': '750',
        }),
      );
      const error = await failureOf(summarizer().summarize(request));
      expect(error).toMatchObject({ kind: 'retryable', status: 429, retryAfterMs: 750 });
      expect(server.requests).toHaveLength(1);
    });

    it('maps 503 to retryable', async () => {
      server.script(jsonReply(503, apiError('The server is overloaded', 'server_error')));
      expect(await failureOf(summarizer().summarize(request))).toMatchObject({
        kind: 'retryable',
        status: 503,
      });
    });

    it('maps a context_length_exceeded code to overflow', async () => {
      server.script(
        jsonReply(
          400,
          apiError('Input too big for this model', 'invalid_request_error', 'context_length_exceeded'),
        ),
      );
      expect(await failureOf(summarizer().summarize(request))).toMatchObject({ kind: 'overflow' });
    });

    it('maps a llama.cpp-style context message to overflow', async () => {
      server.script(
        jsonReply(
          400,
          apiError(
            'the request exceeds the available context size, try increasing it',
            'exceed_context_size_error',
          ),
        ),
      );
      expect((await failureOf(summarizer().summarize(request))).kind).toBe('overflow');
    });

    it('maps a bodiless 400 to overflow (as Cerebras and Mistral report it)', async () => {
      server.script({ kind: 'respond', status: 400, body: '' });
      expect((await failureOf(summarizer().summarize(request))).kind).toBe('overflow');
    });

    it('maps 401 and an ordinary 400 to fatal', async () => {
      server.script(
        jsonReply(401, apiError('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key')),
        jsonReply(400, apiError('Unrecognized request argument supplied: foo', 'invalid_request_error')),
      );
      expect(await failureOf(summarizer().summarize(request))).toMatchObject({
        kind: 'fatal',
        code: 'authentication_failed',
      });
      expect(await failureOf(summarizer().summarize(request))).toMatchObject({
        kind: 'fatal',
        code: 'bad_request',
      });
    });
  });

  describe('given a server that never answers', () => {
    beforeEach(() => server.script(hangReply));

    it('times out as retryable', async () => {
      expect(await failureOf(summarizer({ timeoutMs: 100 }).summarize(request))).toMatchObject({
        code: 'timed_out',
      });
    });

    it('stops when the caller aborts mid-request', async () => {
      const controller = new AbortController();
      const pending = summarizer().summarize(request, controller.signal);
      await server.received(1);
      controller.abort();
      expect((await failureOf(pending)).kind).toBe('aborted');
    });
  });
});
