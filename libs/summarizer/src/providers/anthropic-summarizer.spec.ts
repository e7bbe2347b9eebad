import { SummarizerError } from '../errors/summarizer-error';
import type { SummaryRequest } from '../summarizer.port';
import { LoopbackServer, hangReply, jsonReply, textReply } from '../testing/loopback-server';
import { AnthropicSummarizer, type AnthropicSummarizerOptions } from './anthropic-summarizer';

const request: SummaryRequest = {
  purpose: 'history',
  systemPrompt: 'You summarise conversations.',
  prompt: '<conversation>\n[User]: fix the bug\n</conversation>\n\nSummarise.',
  maxTokens: 13_107,
};

function message(text: string, stopReason: string, extra: Record<string, unknown> = {}) {
  return {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-test-1',
    content: [{ type: 'text', text, citations: null }],
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: 1200,
      output_tokens: 80,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
    ...extra,
  };
}

function apiError(type: string, text: string) {
  return { type: 'error', error: { type, message: text } };
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

describe('the Anthropic summariser, through the real SDK against a local Messages API', () => {
  let server: LoopbackServer;

  beforeEach(async () => {
    server = await LoopbackServer.start();
  });

  afterEach(async () => {
    await server.close();
  });

  function summarizer(options: Partial<AnthropicSummarizerOptions> = {}) {
    return new AnthropicSummarizer({
      apiKey: 'test-key',
      model: 'claude-test-1',
      baseUrl: server.origin,
      ...options,
    });
  }

  describe('given a normal answer', () => {
    beforeEach(() => server.script(jsonReply(200, message('## Goal\n- fix the bug', 'end_turn'))));

    it('sends the system prompt and one user message with max_tokens, and returns the text', async () => {
      const result = await summarizer().summarize(request);
      expect(result).toEqual({
        text: '## Goal\n- fix the bug',
        model: 'claude-test-1',
        stopReason: 'stop',
        usage: { input: 1200, output: 80 },
      });
      expect(server.requests[0]?.path).toBe('/v1/messages');
      expect(server.jsonBody(0)).toEqual({
        model: 'claude-test-1',
        max_tokens: 13_107,
        system: request.systemPrompt,
        messages: [{ role: 'user', content: request.prompt }],
      });
    });

    // Reference §11.1 defect 15: upstream always asks for high reasoning on summary calls.
    it('sends no thinking option unless configured', async () => {
      await summarizer().summarize(request);
      expect(server.jsonBody(0)).not.toHaveProperty('thinking');
    });

    it('adds a configured thinking budget on top of the summary allowance', async () => {
      await summarizer({ thinking: { type: 'enabled', budget_tokens: 4000 } }).summarize(request);
      expect(server.jsonBody(0)).toMatchObject({
        max_tokens: 17_107,
        thinking: { type: 'enabled', budget_tokens: 4000 },
      });
    });

    it('uses the model named in the request over the configured one', async () => {
      await summarizer().summarize({ ...request, model: 'claude-other' });
      expect(server.jsonBody(0)).toMatchObject({ model: 'claude-other' });
    });
  });

  describe('given an answer that is not a usable summary', () => {
    // Reference §11.1 defect 14: upstream stores a max_tokens-truncated summary silently.
    it('rejects a max_tokens stop as truncated', async () => {
      server.script(jsonReply(200, message('## Goal\n- fix the', 'max_tokens')));
      expect(await failureOf(summarizer().summarize(request))).toMatchObject({
        kind: 'invalid_response',
        code: 'truncated',
      });
    });

    it('rejects an answer with no text blocks as empty', async () => {
      server.script(jsonReply(200, message('', 'end_turn', { content: [] })));
      expect((await failureOf(summarizer().summarize(request))).code).toBe('empty_summary');
    });

    it('rejects a body that is not a message as malformed', async () => {
      server.script(jsonReply(200, { hello: 'world' }));
      expect((await failureOf(summarizer().summarize(request))).code).toBe('malformed_response');
    });

    it('rejects a body that is not JSON as malformed', async () => {
      server.script(
        textReply(200, '{"type":"message", "content": [', { 'content-type': 'application/json' }),
      );
      expect((await failureOf(summarizer().summarize(request))).kind).toBe('invalid_response');
    });

    it('treats a context-window stop as an overflow', async () => {
      server.script(jsonReply(200, message('partial', 'model_context_window_exceeded')));
      expect((await failureOf(summarizer().summarize(request))).kind).toBe('overflow');
    });
  });

  describe('given an error response', () => {
    it('maps 429 to retryable with the retry-after wait, and does not retry inside the SDK', async () => {
      server.script(
        jsonReply(429, apiError('rate_limit_error', 'Number of requests exceeded'), { 'retry-after': '2' }),
      );
      const error = await failureOf(summarizer().summarize(request));
      expect(error).toMatchObject({
        kind: 'retryable',
        code: 'rate_limited',
        status: 429,
        retryAfterMs: 2000,
      });
      expect(server.requests).toHaveLength(1);
    });

    it('maps 529 overloaded to retryable', async () => {
      server.script(jsonReply(529, apiError('overloaded_error', 'Overloaded')));
      expect(await failureOf(summarizer().summarize(request))).toMatchObject({
        kind: 'retryable',
        code: 'overloaded',
      });
      expect(server.requests).toHaveLength(1);
    });

    it('maps 500 to a retryable server error', async () => {
      server.script(jsonReply(500, apiError('api_error', 'Internal server error')));
      expect(await failureOf(summarizer().summarize(request))).toMatchObject({
        kind: 'retryable',
        status: 500,
      });
    });

    it('maps "prompt is too long" to overflow', async () => {
      server.script(
        jsonReply(
          400,
          apiError('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'),
        ),
      );
      expect(await failureOf(summarizer().summarize(request))).toMatchObject({
        kind: 'overflow',
        status: 400,
      });
    });

    it('maps 401 to fatal and another 400 to fatal', async () => {
      server.script(
        jsonReply(401, apiError('authentication_error', 'invalid x-api-key')),
        jsonReply(400, apiError('invalid_request_error', 'max_tokens: must be positive')),
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
      const error = await failureOf(summarizer({ timeoutMs: 100 }).summarize(request));
      expect(error).toMatchObject({ kind: 'retryable', code: 'timed_out' });
    });

    it('stops when the caller aborts mid-request', async () => {
      const controller = new AbortController();
      const pending = summarizer().summarize(request, controller.signal);
      await server.received(1);
      controller.abort();
      expect((await failureOf(pending)).kind).toBe('aborted');
    });
  });

  it('reports an unreachable server as a retryable connection failure', async () => {
    const origin = server.origin;
    await server.close();
    const error = await failureOf(summarizer({ baseUrl: origin }).summarize(request));
    expect(error).toMatchObject({ kind: 'retryable', code: 'connection_failed' });
    server = await LoopbackServer.start();
  });
});
