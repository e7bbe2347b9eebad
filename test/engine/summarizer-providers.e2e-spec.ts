// End to end: compactions whose summaries travel over real HTTP to loopback servers speaking
// the remote-endpoint, Anthropic and OpenAI-compatible wire formats, configured through the
// engine's settings (API keys from named environment variables), with retries and fallback.
import { session, type SessionBuilder } from '@strata/testing';
import { CompactSessionCommand } from '../../apps/engine/src/sessions/compact-session/compact-session.command';
import { startEngine, type EngineHarness } from './engine-harness';
import { ProviderServer, anthropicMessage, chatCompletion } from './provider-server';

function sixTurns(): SessionBuilder {
  const builder = session();
  return builder.editTurns(6);
}

const builder = sixTurns();
const sessionId = builder.header.id;

describe('summaries over HTTP', () => {
  let server: ProviderServer;
  let engine: EngineHarness;

  beforeEach(async () => {
    server = await ProviderServer.start();
  });

  afterEach(async () => {
    await engine.close();
    await server.close();
  });

  describe('given compaction.remoteEndpoint', () => {
    beforeEach(async () => {
      server.script('/summarize', {
        status: 200,
        body: { summary: 'Remote summary of the work', shortSummary: 'I edited six modules.' },
      });
      engine = await startEngine({
        settings: {
          compaction: { keepRecentTokens: 250, remoteEndpoint: `${server.origin}/summarize` },
        },
      });
      await engine.seed(builder.header, builder.entries);
    });

    it('posts {systemPrompt, prompt} for the history and the turn prefix, and takes the short summary from the answer', async () => {
      const result = await engine.commands.execute(new CompactSessionCommand(sessionId));

      expect(result).toMatchObject({
        outcome: 'completed',
        model: 'remote-endpoint',
        entry: { shortSummary: 'I edited six modules.' },
      });
      const posts = server.requestsTo('/summarize');
      expect(posts.map((post) => Object.keys(post.body).sort())).toEqual(
        posts.map(() => ['prompt', 'systemPrompt']),
      );
      expect(posts).toHaveLength(2);
      expect(posts.some((post) => String(post.body.prompt).includes('BEGINNING of a single turn'))).toBe(
        true,
      );
    });
  });

  describe('given a failing remote endpoint, then an Anthropic candidate that is rate limited once', () => {
    beforeEach(async () => {
      server.script('/summarize', { status: 503, body: { error: 'down' } });
      server.script(
        '/v1/messages',
        {
          status: 429,
          body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
          headers: { 'retry-after': '0' },
        },
        anthropicMessage('Anthropic summary'),
      );
      engine = await startEngine({
        environment: { TEST_ANTHROPIC_KEY: 'test-key' },
        settings: {
          compaction: { keepRecentTokens: 250, remoteEndpoint: `${server.origin}/summarize` },
          summarizer: {
            candidates: [
              {
                provider: 'anthropic',
                model: 'claude-test',
                baseUrl: server.origin,
                apiKeyEnv: 'TEST_ANTHROPIC_KEY',
              },
            ],
            retry: { maxRetries: 1, baseDelayMs: 1 },
          },
        },
      });
      await engine.seed(builder.header, builder.entries);
    });

    it('retries, falls back to the next candidate, and records which model answered with its usage', async () => {
      const result = await engine.commands.execute(new CompactSessionCommand(sessionId));

      // The model the provider answered with (its response's `model`), not the candidate's name.
      expect(result).toMatchObject({ outcome: 'completed', model: 'claude-test' });
      expect(result.outcome === 'completed' && result.entry.summary).toContain('Anthropic summary');
      expect(result.outcome === 'completed' && result.usage?.input).toBeGreaterThan(0);
      expect(server.requestsTo('/summarize').length).toBeGreaterThanOrEqual(2);
      expect(server.requestsTo('/v1/messages')[0]?.headers.authorization).toBe('Bearer test-key');
    });
  });

  describe('given an OpenAI-compatible local server whose answers are malformed', () => {
    beforeEach(async () => {
      server.script('/v1/chat/completions', { status: 200, body: { nonsense: true } });
      engine = await startEngine({
        environment: { LOCAL_KEY: 'local' },
        settings: {
          compaction: { keepRecentTokens: 250 },
          summarizer: {
            candidates: [
              {
                provider: 'openai-compatible',
                model: 'local-model',
                baseUrl: `${server.origin}/v1`,
                apiKeyEnv: 'LOCAL_KEY',
              },
            ],
            retry: { maxRetries: 0 },
          },
        },
      });
      await engine.seed(builder.header, builder.entries);
    });

    it('ends the attempt failed with the summariser error and writes no compaction', async () => {
      const before = (await engine.events(sessionId)).length;
      const result = await engine.commands.execute(new CompactSessionCommand(sessionId));

      expect(result).toMatchObject({ outcome: 'failed', error: { code: 'malformed_response' } });
      const events = (await engine.events(sessionId)).slice(before);
      expect(events.map((event) => event.type)).toEqual(['CompactionStarted', 'CompactionFailed']);
      const started = events[0]?.data as { model?: unknown; tokensBefore?: unknown } | undefined;
      expect(started?.model).toEqual(expect.stringContaining('local-model'));
      expect(events[1]?.data).toEqual({
        attemptId: result.attemptId,
        error: { message: expect.any(String), code: 'malformed_response' },
        trigger: 'manual',
        model: started?.model,
        durationMs: expect.any(Number),
        tokensBefore: started?.tokensBefore,
        estimatedTokensAfter: started?.tokensBefore,
        summaryCalls: [
          {
            purpose: 'history',
            summarizer: started?.model,
            retry: 0,
            durationMs: expect.any(Number),
            error: { message: expect.any(String), code: 'malformed_response' },
          },
        ],
      });
    });
  });

  describe('given an OpenAI-compatible local server that answers', () => {
    beforeEach(async () => {
      server.script('/v1/chat/completions', chatCompletion('Local model summary'));
      engine = await startEngine({
        environment: { LOCAL_KEY: 'local' },
        settings: {
          compaction: { keepRecentTokens: 250 },
          summarizer: {
            candidates: [
              {
                provider: 'openai-compatible',
                model: 'local-model',
                baseUrl: `${server.origin}/v1`,
                apiKeyEnv: 'LOCAL_KEY',
              },
            ],
          },
        },
      });
      await engine.seed(builder.header, builder.entries);
    });

    it('summarises through it', async () => {
      const result = await engine.commands.execute(new CompactSessionCommand(sessionId));
      // The model the server answered with, not the candidate's name (openai-compatible:local-model@…).
      expect(result).toMatchObject({ outcome: 'completed', model: 'local-model' });
      expect(server.requestsTo('/v1/chat/completions')[0]?.headers.authorization).toBe('Bearer local');
    });
  });
});
