// @strata/summarizer: the summariser port, its providers, retries, and prompt loading.
export * from './prompts/prompt-library';
