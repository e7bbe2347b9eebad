// Loads what the sagas need of a session to handle one of its events (`SagaSessionView`): the
// stream is read and folded, the settings in force resolved, the current model and its window
// looked up, and the compactions' triggers and this event's earlier pruning (a redelivery)
// picked out on the way.
import { Inject, Injectable } from '@nestjs/common';
import { parseStoredSessionEvent, type EventStore } from '@strata/event-store';
import {
  evolve,
  initialState,
  sessionStreamName,
  type ActiveSessionState,
  type CompactionTrigger,
  type SessionState,
  type TokenCounter,
} from '@strata/session';
import { sessionModelOf } from '../sessions/session-views';
import { contextWindowOf } from '../settings/engine-settings';
import type { EngineSettings } from '../settings/engine-settings.schema';
import { resolveSessionSettings } from '../settings/session-settings';
import { ENGINE_SETTINGS, EVENT_STORE, TOKEN_COUNTER } from '../shared/injection-tokens';
import { pruningEventIdOf } from './saga-ids';
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

@Injectable()
export class SagaViewLoader {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
    @Inject(TOKEN_COUNTER) private readonly counter: TokenCounter,
  ) {}

  /** The view of the trigger's session as it is now; undefined when the session is gone (erased). */
  async load(trigger: SagaTrigger): Promise<SagaSessionView | undefined> {
    const pruningEventId = pruningEventIdOf(trigger.eventId);
    let recordedPruningSavings: number | undefined;
    let state: SessionState = initialState();
    for await (const recorded of this.store.readStream(sessionStreamName(trigger.sessionId))) {
      const event = parseStoredSessionEvent(recorded);
      state = evolve(state, event);
      if (recorded.id === pruningEventId && event.type === 'ToolOutputsPruned') {
        recordedPruningSavings = event.data.tokensSaved;
      }
    }
    if (state.status !== 'active') return undefined;
    const settings = resolveSessionSettings(this.settings, state.entries()).settings;
    const path = state.currentPath();
    const currentModel = sessionModelOf(path);
    return {
      settings: { compaction: settings.compaction, pruning: settings.pruning },
      path,
      prunedResults: state.prunedResults(),
      currentModel,
      contextWindow: contextWindowOf(settings, currentModel),
      compactionTriggers: compactionTriggersOf(state),
      recordedPruningSavings,
      tokenCounter: this.counter,
    };
  }
}
