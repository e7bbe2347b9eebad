// Builds the ordered summariser candidates from the settings (reference §5.5): the remote
// endpoint of `compaction.remoteEndpoint` first when set, then `summarizer.candidates` in
// order. A provider whose API key variable is unset is left out with a warning, as the
// reference skips candidates without a key.
import {
  AnthropicSummarizer,
  OFFLINE_SUMMARIZER_NAME,
  OfflineExtractiveSummarizer,
  OpenAiCompatibleSummarizer,
  RemoteEndpointSummarizer,
  type Summarizer,
} from '@strata/summarizer';
import type { EngineSettings, SummarizerCandidateSettings } from '../settings/engine-settings.schema';

export type Environment = Readonly<Record<string, string | undefined>>;

/** The environment variable a candidate reads its key or header from, if it needs one. */
function secretVariableOf(candidate: SummarizerCandidateSettings): string | undefined {
  switch (candidate.provider) {
    case 'offline':
      return undefined;
    case 'remote':
      return candidate.authHeader?.valueEnv;
    case 'anthropic':
    case 'openai-compatible':
      return candidate.apiKeyEnv;
    default: {
      const unhandled: never = candidate;
      throw new Error(`unhandled summariser provider ${JSON.stringify(unhandled)}`);
    }
  }
}

function isUnset(environment: Environment, variable: string): boolean {
  const value = environment[variable];
  return value === undefined || value === '';
}

/** A candidate as the start-up message names it: provider, model or address. */
function candidateDescription(candidate: SummarizerCandidateSettings): string {
  switch (candidate.provider) {
    case 'offline':
      return OFFLINE_SUMMARIZER_NAME;
    case 'remote':
      return `remote endpoint ${candidate.url}`;
    case 'anthropic':
    case 'openai-compatible':
      return `${candidate.provider}:${candidate.model}${candidate.baseUrl !== undefined ? ` at ${candidate.baseUrl}` : ''}`;
    default: {
      const unhandled: never = candidate;
      throw new Error(`unhandled summariser provider ${JSON.stringify(unhandled)}`);
    }
  }
}

/**
 * The candidates in the order they are tried, each named, those whose key variable is unset
 * marked as left out (what `buildSummarizerCandidates` builds from the same settings).
 */
export function describeSummarizerCandidates(
  settings: Pick<EngineSettings, 'compaction' | 'summarizer'>,
  environment: Environment,
): string[] {
  const described: string[] = [];
  if (settings.compaction.remoteEndpoint !== undefined)
    described.push(`remote endpoint ${settings.compaction.remoteEndpoint} (compaction.remoteEndpoint)`);
  for (const candidate of settings.summarizer.candidates) {
    const variable = secretVariableOf(candidate);
    const leftOut = variable !== undefined && isUnset(environment, variable);
    described.push(
      `${candidateDescription(candidate)}${leftOut ? ` (left out: ${variable} is not set)` : ''}`,
    );
  }
  return described;
}

function candidateOf(
  candidate: SummarizerCandidateSettings,
  environment: Environment,
  warn: (message: string) => void,
): Summarizer | undefined {
  const secret = (variable: string, what: string): string | undefined => {
    if (isUnset(environment, variable)) {
      warn(`${what}: environment variable ${variable} is not set; this summariser is left out`);
      return undefined;
    }
    return environment[variable];
  };
  switch (candidate.provider) {
    case 'offline':
      return new OfflineExtractiveSummarizer();
    case 'remote': {
      const { authHeader } = candidate;
      const value = authHeader
        ? secret(authHeader.valueEnv, `remote summariser ${candidate.url}`)
        : undefined;
      if (authHeader && value === undefined) return undefined;
      return new RemoteEndpointSummarizer({
        url: candidate.url,
        ...(authHeader && value !== undefined ? { authHeader: { name: authHeader.name, value } } : {}),
        ...(candidate.timeoutMs !== undefined ? { timeoutMs: candidate.timeoutMs } : {}),
      });
    }
    case 'anthropic': {
      const apiKey = secret(candidate.apiKeyEnv, `anthropic summariser ${candidate.model}`);
      if (apiKey === undefined) return undefined;
      return new AnthropicSummarizer({
        apiKey,
        model: candidate.model,
        ...(candidate.baseUrl !== undefined ? { baseUrl: candidate.baseUrl } : {}),
        ...(candidate.timeoutMs !== undefined ? { timeoutMs: candidate.timeoutMs } : {}),
      });
    }
    case 'openai-compatible': {
      const apiKey = secret(candidate.apiKeyEnv, `openai-compatible summariser ${candidate.model}`);
      if (apiKey === undefined) return undefined;
      return new OpenAiCompatibleSummarizer({
        apiKey,
        model: candidate.model,
        ...(candidate.baseUrl !== undefined ? { baseUrl: candidate.baseUrl } : {}),
        ...(candidate.timeoutMs !== undefined ? { timeoutMs: candidate.timeoutMs } : {}),
        ...(candidate.maxTokensField !== undefined ? { maxTokensField: candidate.maxTokensField } : {}),
      });
    }
    default: {
      const unhandled: never = candidate;
      throw new Error(`unhandled summariser provider ${JSON.stringify(unhandled)}`);
    }
  }
}

export function buildSummarizerCandidates(
  settings: Pick<EngineSettings, 'compaction' | 'summarizer'>,
  environment: Environment,
  warn: (message: string) => void = () => undefined,
): Summarizer[] {
  const candidates: Summarizer[] = [];
  if (settings.compaction.remoteEndpoint !== undefined) {
    candidates.push(new RemoteEndpointSummarizer({ url: settings.compaction.remoteEndpoint }));
  }
  for (const candidate of settings.summarizer.candidates) {
    const summarizer = candidateOf(candidate, environment, warn);
    if (summarizer) candidates.push(summarizer);
  }
  return candidates;
}
