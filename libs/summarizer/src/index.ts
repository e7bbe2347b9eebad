// @strata/summarizer: the summariser port, its providers, retries, and prompt loading.
export * from './prompts/prompt-library';
export * from './summarizer.port';
export * from './errors/summarizer-error';
export * from './errors/retry-after';
export * from './errors/context-overflow';
export * from './errors/http-failure';
export * from './summary-acceptance';
export * from './candidates';
export { DEFAULT_SUMMARY_TIMEOUT_MS } from './providers/request-deadline';
export * from './providers/remote-endpoint-summarizer';
export * from './providers/anthropic-summarizer';
export * from './providers/openai-compatible-summarizer';
export { OFFLINE_SUMMARY_LABEL } from './offline/render-summary';
export * from './offline/offline-extractive-summarizer';
