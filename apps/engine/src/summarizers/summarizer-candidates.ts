// Builds the ordered summariser candidates from the settings (reference §5.5): the remote
// endpoint of `compaction.remoteEndpoint` first when set (a URL, or a URL with an auth header and
// a timeout, as a `remote` candidate), then `summarizer.candidates` in order. A provider whose
// API key (or auth header) variable is unset is left out with a warning, as the reference skips
// candidates without a key.
import {
  AnthropicSummarizer,
  OFFLINE_SUMMARIZER_NAME,
  OfflineExtractiveSummarizer,
  OpenAiCompatibleSummarizer,
  RemoteEndpointSummarizer,
  type Summarizer,
} from '@strata/summarizer';
import type { EngineSettings, SummarizerCandidateSettings } from '../settings/engine-settings.schema';
import { withGenAiTelemetry } from '../observability/tracing/genai-summarizer';
import { genAiTargetOf } from './genai-targets';

export type Environment = Readonly<Record<string, string | undefined>>;

type RemoteSettings = Omit<Extract<SummarizerCandidateSettings, { provider: 'remote' }>, 'provider'>;
type Secret = (variable: string, what: string) => string | undefined;

/** The name of `compaction.remoteEndpoint` (what the audit records of it). */
export const REMOTE_ENDPOINT_NAME = 'remote-endpoint';

/**
 * A `remote` candidate's name: `remote:` and the host and path of its URL (never its query or
 * credentials), so that two remote summarisers, or one and the remote endpoint, stay apart.
 */
function remoteCandidateName(url: string): string {
  const { host, pathname } = new URL(url);
  return `remote:${host}${pathname}`;
}

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
  const remote = remoteEndpointOf(settings);
  if (remote !== undefined) {
    const variable = remote.authHeader?.valueEnv;
    const leftOut = variable !== undefined && isUnset(environment, variable);
    described.push(
      `remote endpoint ${remote.url} (compaction.remoteEndpoint)${leftOut ? ` (left out: ${variable} is not set)` : ''}`,
    );
  }
  for (const candidate of settings.summarizer.candidates) {
    const variable = secretVariableOf(candidate);
    const leftOut = variable !== undefined && isUnset(environment, variable);
    described.push(
      `${candidateDescription(candidate)}${leftOut ? ` (left out: ${variable} is not set)` : ''}`,
    );
  }
  return described;
}

/** `compaction.remoteEndpoint` as a remote summariser's settings; undefined when not set. */
function remoteEndpointOf(settings: Pick<EngineSettings, 'compaction'>): RemoteSettings | undefined {
  const { remoteEndpoint } = settings.compaction;
  if (remoteEndpoint === undefined) return undefined;
  return typeof remoteEndpoint === 'string' ? { url: remoteEndpoint } : remoteEndpoint;
}

function secretsOf(environment: Environment, warn: (message: string) => void): Secret {
  return (variable, what) => {
    if (isUnset(environment, variable)) {
      warn(`${what}: environment variable ${variable} is not set; this summariser is left out`);
      return undefined;
    }
    return environment[variable];
  };
}

/** A remote summariser (a `remote` candidate or the remote endpoint); left out when its auth value is unset. */
function remoteSummarizerOf(remote: RemoteSettings, name: string, secret: Secret): Summarizer | undefined {
  const { authHeader } = remote;
  const value = authHeader ? secret(authHeader.valueEnv, `remote summariser ${remote.url}`) : undefined;
  if (authHeader && value === undefined) return undefined;
  return new RemoteEndpointSummarizer({
    url: remote.url,
    name,
    ...(authHeader && value !== undefined ? { authHeader: { name: authHeader.name, value } } : {}),
    ...(remote.timeoutMs !== undefined ? { timeoutMs: remote.timeoutMs } : {}),
  });
}

function candidateOf(candidate: SummarizerCandidateSettings, secret: Secret): Summarizer | undefined {
  switch (candidate.provider) {
    case 'offline':
      return new OfflineExtractiveSummarizer();
    case 'remote':
      return remoteSummarizerOf(candidate, remoteCandidateName(candidate.url), secret);
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
  const secret = secretsOf(environment, warn);
  const remote = remoteEndpointOf(settings);
  if (remote !== undefined) {
    const summarizer = remoteSummarizerOf(remote, REMOTE_ENDPOINT_NAME, secret);
    const target = genAiTargetOf({ provider: 'remote', ...remote });
    if (summarizer) candidates.push(withGenAiTelemetry(summarizer, target, environment));
  }
  for (const candidate of settings.summarizer.candidates) {
    const summarizer = candidateOf(candidate, secret);
    if (summarizer) candidates.push(withGenAiTelemetry(summarizer, genAiTargetOf(candidate), environment));
  }
  return candidates;
}
