// What the sagas see of a session when they handle one of its events (`SagaSessionView`), built
// from the write side's folded state (SessionStreams' fold cache: one fold of each session for
// commands and sagas alike): the settings in force, the current path and model with its window,
// which trigger wrote each compaction, and what the pruning this answer caused already saved.
import {
  sessionModelOf,
  type ActiveSessionState,
  type CompactionTrigger,
  type TokenCounter,
} from '@strata/session';
import { contextWindowOf } from '../settings/engine-settings';
import type { EngineSettings } from '../settings/engine-settings.schema';
import { resolveSessionSettings } from '../settings/session-settings';
import type { SagaSessionView, SagaTrigger } from './saga-messages';

/** Compaction entry id → the trigger of the attempt that wrote it. */
function compactionTriggersOf(state: ActiveSessionState): Map<string, CompactionTrigger> {
  const triggers = new Map<string, CompactionTrigger>();
  for (const attempt of state.attempts()) {
    if (attempt.kind === 'compaction' && attempt.outcome?.type === 'CompactionCompleted') {
      triggers.set(attempt.outcome.data.entryId, attempt.outcome.data.trigger);
    }
  }
  return triggers;
}

export function sagaViewOf(
  state: ActiveSessionState,
  trigger: SagaTrigger,
  engineSettings: EngineSettings,
  tokenCounter: TokenCounter,
): SagaSessionView {
  const settings = resolveSessionSettings(engineSettings, state.entries()).settings;
  const path = state.currentPath();
  const currentModel = sessionModelOf(path);
  const { event } = trigger;
  const answerEntryId = event.type === 'EntryAppended' ? event.data.entry.id : undefined;
  return {
    settings: { compaction: settings.compaction, pruning: settings.pruning },
    path,
    prunedResults: state.prunedResults(),
    currentModel,
    contextWindow: contextWindowOf(settings, currentModel),
    compactionTriggers: compactionTriggersOf(state),
    recordedPruningSavings: answerEntryId === undefined ? undefined : state.pruningSavedAfter(answerEntryId),
    tokenCounter,
  };
}
