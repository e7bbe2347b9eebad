// The session decider: `decide(command, state) → events` over the fold in session-state.ts.
// Pure: it reads only the command and the state, and throws a `SessionDomainError` (a closed
// set of codes) when a command would break an invariant of the session.
import {
  cancelBranchSummary,
  failBranchSummary,
  recordBranchSummary,
  skipBranchSummary,
  startBranchSummary,
} from './decide-branch-summary';
import {
  cancelCompaction,
  failCompaction,
  recordCompaction,
  requestContinuation,
  skipCompaction,
  startCompaction,
} from './decide-compaction';
import { appendEntries, moveLeaf, recordPruning, setLabel, startSession } from './decide-entries';
import { checkLease, releaseLease, takeLease } from './decide-lease';
import type { SessionCommand } from './session-commands';
import { notFound } from './session-domain-error';
import type { SessionEvent } from './session-events';
import { evolve, initialState, type ActiveSessionState, type SessionState } from './session-state';

function requireStarted(state: SessionState): ActiveSessionState {
  if (state.status !== 'active') throw notFound('the session has not been started');
  return state;
}

export function decide(command: SessionCommand, state: SessionState): SessionEvent[] {
  if (command.type === 'StartSession') return startSession(command, state);
  const session = requireStarted(state);
  switch (command.type) {
    case 'AppendEntries':
      return appendEntries(command, session);
    case 'MoveLeaf':
      return moveLeaf(command, session);
    case 'SetLabel':
      return setLabel(command, session);
    case 'RecordPruning':
      return recordPruning(command, session);
    case 'StartCompaction':
      return startCompaction(command, session);
    case 'RecordCompaction':
      return recordCompaction(command, session);
    case 'SkipCompaction':
      return skipCompaction(command, session);
    case 'CancelCompaction':
      return cancelCompaction(command, session);
    case 'FailCompaction':
      return failCompaction(command, session);
    case 'StartBranchSummary':
      return startBranchSummary(command, session);
    case 'RecordBranchSummary':
      return recordBranchSummary(command, session);
    case 'SkipBranchSummary':
      return skipBranchSummary(command, session);
    case 'CancelBranchSummary':
      return cancelBranchSummary(command, session);
    case 'FailBranchSummary':
      return failBranchSummary(command, session);
    case 'RequestContinuation':
      return requestContinuation(command, session);
    case 'TakeLease':
      return takeLease(command, session);
    case 'ReleaseLease':
      return releaseLease(command, session);
    case 'CheckLease':
      return checkLease(command, session);
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled session command ${JSON.stringify(unhandled)}`);
    }
  }
}

/** Folds events from the initial state. */
export function foldSessionEvents(
  events: Iterable<SessionEvent>,
  from: SessionState = initialState(),
): SessionState {
  let state = from;
  for (const event of events) state = evolve(state, event);
  return state;
}

/** The decider as one value, for command handlers and specifications. */
export const sessionDecider = { decide, evolve, initialState } as const;
