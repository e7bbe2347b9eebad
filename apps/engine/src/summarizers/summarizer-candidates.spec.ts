import { OFFLINE_SUMMARIZER_NAME, RemoteEndpointSummarizer } from '@strata/summarizer';
import { parseEngineSettings } from '../settings/engine-settings';
import { buildSummarizerCandidates, describeSummarizerCandidates } from './summarizer-candidates';

describe('summariser candidates from the settings', () => {
  it('are the offline summariser by default', () => {
    expect(buildSummarizerCandidates(parseEngineSettings({}), {}).map((candidate) => candidate.name)).toEqual(
      [OFFLINE_SUMMARIZER_NAME],
    );
  });

  it('put the remote endpoint first, then the configured providers in order', () => {
    const settings = parseEngineSettings({
      compaction: { remoteEndpoint: 'http://127.0.0.1:9/summarize' },
      summarizer: {
        candidates: [
          { provider: 'anthropic', model: 'claude-x', apiKeyEnv: 'KEY_A' },
          {
            provider: 'openai-compatible',
            model: 'local',
            baseUrl: 'http://127.0.0.1:8080/v1',
            apiKeyEnv: 'KEY_B',
          },
          { provider: 'offline' },
        ],
      },
    });
    const names = buildSummarizerCandidates(settings, { KEY_A: 'a', KEY_B: 'b' }).map(
      (candidate) => candidate.name,
    );
    expect(names).toEqual([
      'remote-endpoint',
      'anthropic:claude-x',
      'openai-compatible:local@127.0.0.1:8080',
      OFFLINE_SUMMARIZER_NAME,
    ]);
  });

  it('take the remote endpoint with an auth header and a timeout, as a remote candidate, and keep two remotes apart', () => {
    const settings = parseEngineSettings({
      compaction: {
        remoteEndpoint: {
          url: 'http://127.0.0.1:9/summarize?token=secret',
          authHeader: { name: 'Authorization', valueEnv: 'REMOTE_TOKEN' },
          timeoutMs: 5,
        },
      },
      summarizer: { candidates: [{ provider: 'remote', url: 'http://127.0.0.1:9/other' }] },
    });
    const candidates = buildSummarizerCandidates(settings, { REMOTE_TOKEN: 'Bearer t' });
    expect(candidates.map((candidate) => candidate.name)).toEqual([
      'remote-endpoint',
      'remote:127.0.0.1:9/other',
    ]);
    expect(candidates[0]).toBeInstanceOf(RemoteEndpointSummarizer);
    expect(candidates[0]).toMatchObject({
      timeoutMs: 5,
      options: { authHeader: { name: 'Authorization', value: 'Bearer t' } },
    });
  });

  it('leave out a remote endpoint whose auth header variable is unset, with a warning', () => {
    const warnings: string[] = [];
    const settings = parseEngineSettings({
      compaction: {
        remoteEndpoint: { url: 'http://127.0.0.1:9/s', authHeader: { name: 'x-token', valueEnv: 'MISSING' } },
      },
    });
    const names = buildSummarizerCandidates(settings, {}, (message) => warnings.push(message)).map(
      (candidate) => candidate.name,
    );
    expect(names).toEqual([OFFLINE_SUMMARIZER_NAME]);
    expect(warnings).toEqual([expect.stringContaining('MISSING is not set')]);
  });

  it('leave out a provider whose key variable is unset, with a warning naming it', () => {
    const warnings: string[] = [];
    const settings = parseEngineSettings({
      summarizer: { candidates: [{ provider: 'anthropic', model: 'claude-x' }, { provider: 'offline' }] },
    });
    const names = buildSummarizerCandidates(settings, {}, (message) => warnings.push(message)).map(
      (candidate) => candidate.name,
    );
    expect(names).toEqual([OFFLINE_SUMMARIZER_NAME]);
    expect(warnings).toEqual([expect.stringContaining('ANTHROPIC_API_KEY is not set')]);
  });

  it('are described in the order they are tried, those without their key marked as left out', () => {
    const settings = parseEngineSettings({
      compaction: { remoteEndpoint: 'http://127.0.0.1:9/summarize' },
      summarizer: {
        candidates: [
          {
            provider: 'remote',
            url: 'https://summaries.example/v1',
            authHeader: { name: 'x-key', valueEnv: 'KEY_R' },
          },
          {
            provider: 'openai-compatible',
            model: 'local',
            baseUrl: 'http://127.0.0.1:8080/v1',
            apiKeyEnv: 'KEY_B',
          },
          { provider: 'offline' },
        ],
      },
    });
    expect(describeSummarizerCandidates(settings, { KEY_B: 'b' })).toEqual([
      'remote endpoint http://127.0.0.1:9/summarize (compaction.remoteEndpoint)',
      'remote endpoint https://summaries.example/v1 (left out: KEY_R is not set)',
      'openai-compatible:local at http://127.0.0.1:8080/v1',
      OFFLINE_SUMMARIZER_NAME,
    ]);
  });

  it('describe the remote endpoint given with an auth header, left out while its variable is unset', () => {
    const settings = parseEngineSettings({
      compaction: {
        remoteEndpoint: { url: 'http://127.0.0.1:9/s', authHeader: { name: 'x-token', valueEnv: 'TOKEN' } },
      },
    });
    expect(describeSummarizerCandidates(settings, {})).toEqual([
      'remote endpoint http://127.0.0.1:9/s (compaction.remoteEndpoint) (left out: TOKEN is not set)',
      OFFLINE_SUMMARIZER_NAME,
    ]);
    expect(describeSummarizerCandidates(settings, { TOKEN: 't' })[0]).toBe(
      'remote endpoint http://127.0.0.1:9/s (compaction.remoteEndpoint)',
    );
  });
});
