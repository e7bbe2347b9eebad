// What the sagas see of a session when they handle one of its events (`SagaSessionView`), built
// from the write side's folded state (SessionStreams' fold cache: one fold of each session for
// commands and sagas alike): the settings in force, the current path and model with its window,
// which trigger wrote each compaction, and what the pruning decided at each check already saved.
// The view does not depend on the trigger: the append handler's forecast builds one for a batch.
// A folded state is immutable, so its view is built once and kept with it (weakly): the append's
// compaction forecast and the saga processor reacting to the same append share one view instead
// of each walking the session's entries, path and attempts again.
import {
  sessionModelOf,
  type ActiveSessionState,
  type CompactionTrigger,
  type TokenCounter,
} from '@strata/session';
import { contextWindowOf } from '../settings/engine-settings';
import type { EngineSettings } from '../settings/engine-settings.schema';
import { resolveStateSettings } from '../settings/session-settings';
import type { SagaSessionView } from './saga-messages';

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

interface KeptView {
  readonly engineSettings: EngineSettings;
  readonly tokenCounter: TokenCounter;
  readonly view: SagaSessionView;
}

const keptViews = new WeakMap<ActiveSessionState, KeptView>();

export function sagaViewOf(
  state: ActiveSessionState,
  engineSettings: EngineSettings,
  tokenCounter: TokenCounter,
): SagaSessionView {
  const kept = keptViews.get(state);
  if (kept !== undefined && kept.engineSettings === engineSettings && kept.tokenCounter === tokenCounter) {
    return kept.view;
  }
  const view = buildSagaView(state, engineSettings, tokenCounter);
  keptViews.set(state, { engineSettings, tokenCounter, view });
  return view;
}

function buildSagaView(
  state: ActiveSessionState,
  engineSettings: EngineSettings,
  tokenCounter: TokenCounter,
): SagaSessionView {
  const settings = resolveStateSettings(engineSettings, state).settings;
  const path = state.currentPath();
  const currentModel = sessionModelOf(path);
  return {
    settings: { compaction: settings.compaction, pruning: settings.pruning },
    path,
    prunedResults: state.prunedResults(),
    currentModel,
    contextWindow: contextWindowOf(settings, currentModel),
    compactionTriggers: compactionTriggersOf(state),
    pruningSavedAfter: (entryId) => state.pruningSavedAfter(entryId),
    tokenCounter,
  };
}
