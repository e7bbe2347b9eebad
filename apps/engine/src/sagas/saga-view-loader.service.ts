// Loads what the sagas need of a session to handle one of its events (`SagaSessionView`): the
// stream is read and folded, the settings in force resolved, the current model and its window
// looked up, and the compactions' triggers and this event's earlier pruning (a redelivery)
// picked out on the way. The folded state of the last sessions is kept with its revision, so
// that the events of one long append (an imported session) fold once, not once per event: a
// load reads only the events after the kept revision and reuses the view when there are none.
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

/** How many sessions' folded state is kept (the least recently loaded goes first). */
const KEPT_SESSIONS = 32;

/** A session folded up to `revision`, with the view built from it once asked for. */
interface FoldedSession {
  readonly state: SessionState;
  readonly revision: bigint;
  /** ToolOutputsPruned event id → tokens saved. */
  readonly pruningSavings: ReadonlyMap<string, number>;
  view?: Omit<SagaSessionView, 'recordedPruningSavings'> | undefined;
}

@Injectable()
export class SagaViewLoader {
  private readonly folded = new Map<string, FoldedSession>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
    @Inject(TOKEN_COUNTER) private readonly counter: TokenCounter,
  ) {}

  /** The view of the trigger's session as it is now; undefined when the session is gone (erased). */
  async load(trigger: SagaTrigger): Promise<SagaSessionView | undefined> {
    const session = await this.fold(trigger.sessionId);
    if (session === undefined || session.state.status !== 'active') return undefined;
    session.view ??= this.viewOf(session.state);
    return {
      ...session.view,
      recordedPruningSavings: session.pruningSavings.get(pruningEventIdOf(trigger.eventId)),
    };
  }

  /** The session folded to its last event: the kept fold, brought up to date. */
  private async fold(sessionId: string): Promise<FoldedSession | undefined> {
    const streamId = sessionStreamName(sessionId);
    const head = await this.store.streamRevision(streamId);
    let kept = this.folded.get(sessionId);
    this.folded.delete(sessionId);
    if (head === null) return undefined;
    if (kept !== undefined && kept.revision > head) kept = undefined;
    if (kept === undefined || kept.revision < head) {
      let state = kept?.state ?? initialState();
      let revision = kept?.revision ?? -1n;
      const pruningSavings = new Map(kept?.pruningSavings);
      const from = kept === undefined ? {} : { fromRevision: kept.revision + 1n };
      for await (const recorded of this.store.readStream(streamId, from)) {
        const event = parseStoredSessionEvent(recorded);
        state = evolve(state, event);
        revision = recorded.revision;
        if (event.type === 'ToolOutputsPruned') pruningSavings.set(recorded.id, event.data.tokensSaved);
      }
      kept = { state, revision, pruningSavings };
    }
    this.folded.set(sessionId, kept);
    for (const oldest of this.folded.keys()) {
      if (this.folded.size <= KEPT_SESSIONS) break;
      this.folded.delete(oldest);
    }
    return kept;
  }

  private viewOf(state: ActiveSessionState): Omit<SagaSessionView, 'recordedPruningSavings'> {
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
      tokenCounter: this.counter,
    };
  }
}
