// Who each configured summariser talks to, in the GenAI conventions' terms (see
// observability/tracing/genai-summarizer.ts): Anthropic's Messages API is `anthropic`; an
// OpenAI-compatible server is `openai` whatever hosts it (as the conventions advise for servers
// that speak OpenAI's API; `server.address` tells them apart); the remote endpoint and the
// offline summariser are Strata's own, `strata.remote` and `strata.offline`.
import { OFFLINE_SUMMARIZER_NAME } from '@strata/summarizer';
import type { SummarizerCandidateSettings } from '../settings/engine-settings.schema';
import type { GenAiTarget } from '../observability/tracing/genai-summarizer';

export function genAiTargetOf(candidate: SummarizerCandidateSettings): GenAiTarget {
  switch (candidate.provider) {
    case 'offline':
      return { provider: 'strata.offline', model: OFFLINE_SUMMARIZER_NAME };
    case 'remote':
      return { provider: 'strata.remote', baseUrl: candidate.url };
    case 'anthropic':
      return {
        provider: 'anthropic',
        model: candidate.model,
        baseUrl: candidate.baseUrl ?? 'https://api.anthropic.com',
      };
    case 'openai-compatible':
      return {
        provider: 'openai',
        model: candidate.model,
        baseUrl: candidate.baseUrl ?? 'https://api.openai.com/v1',
      };
    default: {
      const unhandled: never = candidate;
      throw new Error(`unhandled summariser provider ${JSON.stringify(unhandled)}`);
    }
  }
}
