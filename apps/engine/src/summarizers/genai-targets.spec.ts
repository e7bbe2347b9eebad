// The GenAI provider, model and server of each kind of summariser candidate.
import { genAiTargetOf } from './genai-targets';

describe('the GenAI target of a summariser candidate', () => {
  it('names Anthropic and OpenAI-compatible servers by the API they speak, with their model and address', () => {
    expect(genAiTargetOf({ provider: 'anthropic', model: 'claude-x', apiKeyEnv: 'KEY' })).toEqual({
      provider: 'anthropic',
      model: 'claude-x',
      baseUrl: 'https://api.anthropic.com',
    });
    expect(
      genAiTargetOf({
        provider: 'openai-compatible',
        model: 'local-model',
        apiKeyEnv: 'KEY',
        baseUrl: 'http://127.0.0.1:8080/v1',
      }),
    ).toEqual({ provider: 'openai', model: 'local-model', baseUrl: 'http://127.0.0.1:8080/v1' });
  });

  it("names the remote endpoint and the offline summariser as Strata's own", () => {
    expect(genAiTargetOf({ provider: 'remote', url: 'https://summaries.example/run' })).toEqual({
      provider: 'strata.remote',
      baseUrl: 'https://summaries.example/run',
    });
    expect(genAiTargetOf({ provider: 'offline' })).toEqual({
      provider: 'strata.offline',
      model: 'offline-extractive',
    });
  });
});
