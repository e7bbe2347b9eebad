// Agents' own transcripts (Claude Code, Codex CLI) converted into session entries, and back.
export * from './transcript-lines';
export * from './transcript-converter';
export * from './claude-code';
export { looksLikeClaudeCode } from './claude-code-lines';
export * from './codex';
export { looksLikeCodex } from './codex-lines';
export * from './transcript-file';
