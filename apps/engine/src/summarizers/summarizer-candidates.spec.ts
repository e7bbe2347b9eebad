import { OFFLINE_SUMMARIZER_NAME } from '@strata/summarizer';
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
});
