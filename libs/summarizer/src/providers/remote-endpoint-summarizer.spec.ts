import { SummarizerError } from '../errors/summarizer-error';
import type { SummaryRequest } from '../summarizer.port';
import { LoopbackServer, hangReply, jsonReply, textReply } from '../testing/loopback-server';
import { RemoteEndpointSummarizer } from './remote-endpoint-summarizer';

const request: SummaryRequest = {
  purpose: 'history',
  systemPrompt: 'You summarise conversations.',
  prompt: '<conversation>\n[User]: hi\n</conversation>\n\nSummarise.',
  maxTokens: 1000,
};

async function failureOf(promise: Promise<unknown>): Promise<SummarizerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SummarizerError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('the remote endpoint summariser', () => {
  let server: LoopbackServer;

  beforeEach(async () => {
    server = await LoopbackServer.start();
  });

  afterEach(async () => {
    await server.close();
  });

  function summarizer(options: Partial<ConstructorParameters<typeof RemoteEndpointSummarizer>[0]> = {}) {
    return new RemoteEndpointSummarizer({ url: `${server.origin}/compact`, ...options });
  }

  describe('given an endpoint that answers with a summary', () => {
    beforeEach(() =>
      server.script(jsonReply(200, { summary: '## Goal\n- say hi', shortSummary: 'I said hi.' })),
    );

    it('POSTs {systemPrompt, prompt} as JSON and returns the summary', async () => {
      const result = await summarizer().summarize(request);
      expect(result).toEqual({
        text: '## Goal\n- say hi',
        model: 'remote-endpoint',
        stopReason: 'unreported',
        shortSummary: 'I said hi.',
      });
      expect(server.requests[0]?.method).toBe('POST');
      expect(server.requests[0]?.path).toBe('/compact');
      expect(server.requests[0]?.headers['content-type']).toBe('application/json');
      expect(server.jsonBody(0)).toEqual({ systemPrompt: request.systemPrompt, prompt: request.prompt });
    });

    // Reference §11.1 defect 12: upstream sends no auth header at all.
    it('sends the configured auth header', async () => {
      await summarizer({ authHeader: { name: 'Authorization', value: 'Bearer s3cret' } }).summarize(request);
      expect(server.requests[0]?.headers.authorization).toBe('Bearer s3cret');
    });
  });

  describe('given an endpoint that names its model and reports its usage', () => {
    it('returns the model it names and the usage it reports', async () => {
      server.script(
        jsonReply(200, {
          summary: 'Done.',
          model: 'fake-summarizer-1-2026',
          usage: { input: 812, output: 64 },
        }),
      );
      const result = await summarizer().summarize(request);
      expect(result).toEqual({
        text: 'Done.',
        model: 'fake-summarizer-1-2026',
        usage: { input: 812, output: 64 },
        stopReason: 'unreported',
      });
    });

    it('ignores a model or a usage in another shape, and keeps the summary', async () => {
      server.script(
        jsonReply(200, { summary: 'Done.', model: 42, usage: { prompt_tokens: 812, completion_tokens: 64 } }),
      );
      const result = await summarizer().summarize(request);
      expect(result).toEqual({ text: 'Done.', model: 'remote-endpoint', stopReason: 'unreported' });
    });
  });

  describe('given an endpoint that answers badly', () => {
    it('rejects a body without a string summary as missing_summary', async () => {
      server.script(jsonReply(200, { text: 'wrong field' }));
      const error = await failureOf(summarizer().summarize(request));
      expect(error.code).toBe('missing_summary');
      expect(error.message).toBe('Remote compaction response missing summary');
    });

    it('rejects a body that is not JSON as malformed_response', async () => {
      server.script(textReply(200, '<html>gateway</html>'));
      expect((await failureOf(summarizer().summarize(request))).code).toBe('malformed_response');
    });

    // Reference §11.1 defect 14: upstream accepts an empty summary.
    it('rejects an empty summary', async () => {
      server.script(jsonReply(200, { summary: '   ' }));
      expect((await failureOf(summarizer().summarize(request))).code).toBe('empty_summary');
    });

    it('turns a 429 into a retryable error carrying the retry-after wait', async () => {
      server.script(jsonReply(429, { error: 'slow down' }, { 'retry-after': '3' }));
      const error = await failureOf(summarizer().summarize(request));
      expect(error).toMatchObject({
        kind: 'retryable',
        code: 'rate_limited',
        status: 429,
        retryAfterMs: 3000,
      });
      expect(error.message).toBe('Remote compaction failed (429 Too Many Requests)');
    });

    it('turns a 502 into a retryable server error', async () => {
      server.script(textReply(502, 'bad gateway'));
      expect(await failureOf(summarizer().summarize(request))).toMatchObject({
        kind: 'retryable',
        status: 502,
      });
    });

    it('turns a 401 into a fatal error', async () => {
      server.script(jsonReply(401, { error: 'no' }));
      expect(await failureOf(summarizer().summarize(request))).toMatchObject({ kind: 'fatal', status: 401 });
    });

    it('classifies an overflow phrasing in the error body as overflow', async () => {
      server.script(jsonReply(400, { error: 'prompt is too long: 300000 tokens > 200000 maximum' }));
      expect((await failureOf(summarizer().summarize(request))).kind).toBe('overflow');
    });
  });

  describe('given an endpoint that never answers', () => {
    beforeEach(() => server.script(hangReply));

    it('times out as a retryable error', async () => {
      const error = await failureOf(summarizer({ timeoutMs: 100 }).summarize(request));
      expect(error).toMatchObject({ kind: 'retryable', code: 'timed_out' });
    });

    // Reference §11.1 defect 12: upstream passes no signal to fetch, so the request runs on.
    it('stops as soon as the caller aborts, while the request is in flight', async () => {
      const controller = new AbortController();
      const pending = summarizer().summarize(request, controller.signal);
      await server.received(1);
      controller.abort();
      expect((await failureOf(pending)).kind).toBe('aborted');
    });
  });

  it('reports an unreachable endpoint as a retryable connection failure', async () => {
    const origin = server.origin;
    await server.close();
    const error = await failureOf(
      new RemoteEndpointSummarizer({ url: `${origin}/compact` }).summarize(request),
    );
    expect(error).toMatchObject({ kind: 'retryable', code: 'connection_failed' });
    server = await LoopbackServer.start();
  });
});
