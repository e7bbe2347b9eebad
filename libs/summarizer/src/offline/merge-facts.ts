// Merges the facts of a previous summary with those of the newer transcript, so that repeated
// compactions accumulate: everything earlier is kept, except what the newer transcript settles.
import { type SummaryFacts, firstLine, sortedPaths, union, unionLatest } from './summary-facts';
import { actionIdentity, labelOfBlockedItem, settles } from './tool-actions';

/** Whether `item` (a Done or In Progress label, or a Blocked item) is about `action`. */
function concerns(item: string, action: string): boolean {
  return item === action || item.startsWith(`${action} —`);
}

/**
 * A previous Blocked item stays unless the newer transcript ran the same action again (its newer
 * outcome is what counts) or, for a build, check or test run, ran any such run successfully.
 */
function stillBlocked(item: string, current: SummaryFacts): boolean {
  const earlier = actionIdentity(labelOfBlockedItem(item));
  const settledBy = (label: string, succeeded: boolean): boolean =>
    settles(actionIdentity(label), succeeded, earlier);
  return (
    !current.done.some((label) => settledBy(label, true)) &&
    !current.blocked.some((later) => settledBy(labelOfBlockedItem(later), false))
  );
}

/**
 * Merges a previous summary's facts with those of the newer transcript: finished work leaves In
 * Progress, settled failures leave Blocked, file lists accumulate (a file once modified is no
 * longer listed as only read), and the newer latest request, next steps and pending question win.
 */
export function mergeFacts(
  previous: SummaryFacts,
  current: SummaryFacts,
  transcriptIsEmpty: boolean,
): SummaryFacts {
  const nowDone = (item: string): boolean => current.done.some((action) => concerns(item, action));
  const nowBlocked = (action: string): boolean => current.blocked.some((item) => concerns(item, action));
  const filesModified = sortedPaths([...previous.filesModified, ...current.filesModified]);
  const filesRead = sortedPaths([...previous.filesRead, ...current.filesRead]).filter(
    (path) => !filesModified.includes(path),
  );
  const listed = new Set([...filesRead, ...filesModified]);
  const olderLatest =
    current.latestRequest !== undefined && previous.latestRequest !== undefined
      ? [firstLine(previous.latestRequest, 200)]
      : [];
  return {
    earlierRequests: union(previous.earlierRequests, olderLatest, current.earlierRequests),
    latestRequest: current.latestRequest ?? previous.latestRequest,
    constraints: union(previous.constraints, current.constraints),
    done: union(
      previous.done.filter((action) => !nowBlocked(action)),
      current.done,
    ),
    inProgress: union(
      previous.inProgress.filter((item) => !nowDone(item)),
      current.inProgress,
    ),
    blocked: union(
      previous.blocked.filter((item) => stillBlocked(item, current)),
      current.blocked,
    ),
    decisions: union(previous.decisions, current.decisions),
    nextSteps: transcriptIsEmpty ? previous.nextSteps : current.nextSteps,
    filesRead,
    filesModified,
    filesMentioned: sortedPaths([...previous.filesMentioned, ...current.filesMentioned]).filter(
      (path) => !listed.has(path),
    ),
    errors: unionLatest(previous.errors, current.errors),
    pendingQuestion: transcriptIsEmpty ? previous.pendingQuestion : current.pendingQuestion,
    notes: union(previous.notes, current.notes),
    requestedFocus: current.requestedFocus,
    focusMatches: current.focusMatches,
  };
}
