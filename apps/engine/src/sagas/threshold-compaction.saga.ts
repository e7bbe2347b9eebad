// Threshold compaction (reference §3.2 and §9, pure). The rule (issue 13, docs/compatibility.md):
// the threshold is checked at the check points only (assistant-turns.ts) — when an answer ends
// the turn, as pi does at `agent_end`, and when a user message is appended, as pi does before
// each prompt — never in the middle of a tool loop (an answer with tool calls, or a tool
// result). At a check point: prune first, then compact when the measured context, less what the
// pruning since the measurement saved, is above the window minus the reserve. The measurement is
// the turn's own answer, or before a prompt the newest answer with usage. Only the newest
// measurement counts: an answer made stale by a later compaction (defect 8), superseded by a
// newer entry, or without usage triggers nothing; an answer that failed with an overflow is
// left to overflow recovery, while one that succeeded with usage above the window is simply
// above the threshold here (issue 25: compacted without a retry). The compaction is asked for at the leaf the check point saw: if the session has
// moved on by the time it runs, or while it is summarised, it ends `skipped: stale`, and the
// newer entry's own check point decides again.
import { calculateContextTokens, isAboveThreshold } from '@strata/session';
import {
  appendsCheckPointCandidate,
  checkPointOf,
  pruningSavedSinceMeasured,
  pruningStep,
  type CheckPoint,
} from './assistant-turns';
import { autoCompactionAttemptId } from './saga-ids';
import type { SagaCommand, SagaSessionView, SagaTrigger, SessionSaga } from './saga-messages';

/**
 * The check point of the trigger that this saga acts on. A failed answer is never one (it has no
 * usage to measure: `checkPointOf` measures answers that did not fail), so an overflow error is
 * left to overflow recovery.
 */
function thresholdCheckPoint(trigger: SagaTrigger, view: SagaSessionView): CheckPoint | undefined {
  if (!view.settings.compaction.enabled) return undefined;
  return checkPointOf(trigger, view);
}

/** The measured context of the check point, less the pruning recorded since the measurement. */
function measuredTokens(point: CheckPoint, view: SagaSessionView, savedNow: number): number {
  const saved = pruningSavedSinceMeasured(point, view) + savedNow;
  return Math.max(0, calculateContextTokens(point.measured.usage) - saved);
}

/**
 * Whether the trigger may ask for a threshold compaction: it is a check point whose context is
 * above the threshold before any new pruning (which only lowers it). Cheap — no pruning is
 * decided — so the append's forecast asks it first.
 */
export function mayCompactAtThreshold(trigger: SagaTrigger, view: SagaSessionView): boolean {
  const point = thresholdCheckPoint(trigger, view);
  if (point === undefined) return false;
  const { reserveTokens } = view.settings.compaction;
  return isAboveThreshold(measuredTokens(point, view, 0), view.contextWindow, reserveTokens);
}

/** The commands after one stored event (see the module header). */
export function thresholdCompactionCommands(
  trigger: SagaTrigger,
  view: SagaSessionView,
): readonly SagaCommand[] {
  const point = thresholdCheckPoint(trigger, view);
  if (point === undefined) return [];
  const pruning = pruningStep(trigger, view);
  const contextTokens = measuredTokens(point, view, pruning.tokensSaved);
  if (!isAboveThreshold(contextTokens, view.contextWindow, view.settings.compaction.reserveTokens)) {
    return pruning.commands;
  }
  return [
    ...pruning.commands,
    {
      type: 'AutoCompact',
      data: {
        sessionId: trigger.sessionId,
        causationEventId: trigger.eventId,
        trigger: 'threshold',
        attemptId: autoCompactionAttemptId(trigger.eventId, 'threshold'),
        atLeafId: view.path.at(-1)?.id ?? null,
      },
    },
  ];
}

export const thresholdCompactionSaga: SessionSaga = {
  name: 'threshold-compaction',
  eventTypes: ['EntryAppended'],
  handles: appendsCheckPointCandidate,
  react: thresholdCompactionCommands,
};
