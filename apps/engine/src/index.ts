// @strata/engine: what the engine offers to code running it in-process (the `strata` CLI, an
// embedding service). The write side's Nest module, the commands it handles with their results,
// and the settings reader; the HTTP application is started by `npm start` (main.ts), not from
// here. Nothing inside apps/engine imports this file: it sits above every floor.
export { EngineModule, type EngineModuleOptions } from './sessions/engine.module';
export { readEngineSettingsFile, parseEngineSettings } from './settings/engine-settings';
export { SettingsValidationError } from './settings/settings-validation-error';
export type { EngineSettings, EngineSettingsInput } from './settings/engine-settings.schema';
export * from './sessions/start-session/start-session.command';
export * from './sessions/append-entries/append-entries.command';
export * from './sessions/set-label/set-label.command';
export * from './sessions/compact-session/compact-session.command';
export * from './sessions/abort-compaction/abort-compaction.command';
export * from './sessions/navigate-session/navigate-session.command';
export type { CompactionResult, CompactRequest } from './sessions/compact-session/compaction-result';
export type { NavigationResult } from './sessions/navigate-session/navigation-result';
export {
  eraseSession,
  erasureReasonProblem,
  sessionErasure,
  SessionErasedError,
  MAX_ERASURE_REASON_LENGTH,
  type SessionErasureRequest,
} from './shared/session-erasure';
export {
  eraseRetentionCandidates,
  retentionCandidates,
  RETENTION_ACTOR,
  type IdleSession,
  type IdleSessionFinder,
  type RetentionCandidate,
  type RetentionPassResult,
} from './sessions/erase-session/retention';
