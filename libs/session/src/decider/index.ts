// The session decider (STYLE.md habit 1): events, commands, state, `decide` and `evolve`.
export * from './session-events';
export * from './session-commands';
export * from './session-domain-error';
export {
  ActiveSessionState,
  evolve,
  initialState,
  type BranchSummaryAttempt,
  type CompactionAttempt,
  type EmptySessionState,
  type SessionAttempt,
  type SessionLease,
  type SessionState,
} from './session-state';
export { decide, foldSessionEvents, sessionDecider } from './decide';
export { EntryPaths } from './entry-paths';
export * from './prepared-compaction';
export * from './decide-import';
export { MAX_LEASE_TTL_MS, MIN_LEASE_TTL_MS, leaseInForce } from './decide-lease';
export { pendingToolCallsAt } from './tool-result-pairing';
