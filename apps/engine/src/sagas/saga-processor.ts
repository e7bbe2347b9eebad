// The session sagas as one processor of the runner of durable work (DESIGN.md decision 5,
// docs/decisions/0005): store → runner → here → pure sagas → CommandBus. For an event some saga
// handles, the session's current state comes from the write side's fold cache, each saga turns
// the event and that view into commands, and the commands run in order through the CommandBus,
// each awaited, so the runner moves its checkpoint only after the work is done. Events an
// import wrote (metadata origin `import`) are history and concern no saga. A session that no
// longer exists (erased) asks for nothing.
import type { CommandBus } from '@nestjs/cqrs';
import { type RecordedEvent } from '@strata/event-store';
import { SessionNotFoundError, isImportedEvent, parseStoredSessionEvent } from '@strata/session-files';
import type { DecodedEvent, Processor } from '@strata/processing';
import { SESSION_STREAM_PREFIX, type SessionEvent, type TokenCounter } from '@strata/session';
import type { SessionStreams } from '../session-streams/session-streams.service';
import type { EngineSettings } from '../settings/engine-settings.schema';
import { tenantOfMetadata } from '../shared/command-context';
import { AttemptRunningElsewhereError } from '../attempts/attempts-elsewhere';
import { engineCommandOf } from './engine-commands';
import type { SagaCommand, SagaTrigger } from './saga-messages';
import { sagaViewOf } from './saga-view';
import { SESSION_SAGAS } from './session-sagas';

/** The processor's checkpoint key (the saga runner's before it was a processor). */
export const SAGA_CHECKPOINT_ID = 'strata-sagas';
export const SAGA_PROCESSOR_NAME = 'sagas';

/** The store event types some saga reads. */
export const SAGA_EVENT_TYPES: readonly string[] = [
  ...new Set(SESSION_SAGAS.flatMap((saga) => saga.eventTypes)),
];

function concernsASaga(event: SessionEvent): boolean {
  return SESSION_SAGAS.some((saga) => saga.handles(event));
}

/** Reads a stored event for the sagas: a trigger, or nothing to do. */
export function decodeSagaEvent(recorded: RecordedEvent): DecodedEvent<SagaTrigger> {
  if (!recorded.streamId.startsWith(SESSION_STREAM_PREFIX)) return { kind: 'pass' };
  const tenant = tenantOfMetadata(recorded.metadata);
  let event: SessionEvent;
  try {
    event = parseStoredSessionEvent(recorded);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { kind: 'invalid', partition: recorded.streamId, tenant, detail };
  }
  // Imported history already happened elsewhere: nothing reacts to it as if it were live.
  if (isImportedEvent(recorded) || !concernsASaga(event)) return { kind: 'pass' };
  return {
    kind: 'message',
    partition: recorded.streamId,
    tenant,
    message: {
      sessionId: recorded.streamId.slice(SESSION_STREAM_PREFIX.length),
      tenant,
      eventId: recorded.id,
      position: recorded.position,
      recordedAt: Date.parse(recorded.createdAt),
      event,
    },
  };
}

export interface SagaProcessorDependencies {
  /** `SAGA_CHECKPOINT_ID` by default. */
  readonly checkpointId?: string;
  readonly streams: SessionStreams;
  readonly commandBus: CommandBus;
  readonly settings: EngineSettings;
  readonly tokenCounter: TokenCounter;
  /** Told how many commands each handled event ran. */
  readonly onCommands?: (count: number) => void;
}

/** The commands the sagas ask for after one trigger (all computed on the same view, in saga order). */
async function commandsFor(
  trigger: SagaTrigger,
  dependencies: SagaProcessorDependencies,
): Promise<readonly SagaCommand[]> {
  let state;
  try {
    state = await dependencies.streams.state(trigger.sessionId);
  } catch (error) {
    if (error instanceof SessionNotFoundError) return [];
    throw error;
  }
  const view = sagaViewOf(state, dependencies.settings, dependencies.tokenCounter);
  return SESSION_SAGAS.filter((saga) => saga.handles(trigger.event)).flatMap((saga) =>
    saga.react(trigger, view),
  );
}

export function sagaProcessor(dependencies: SagaProcessorDependencies): Processor<SagaTrigger> {
  return {
    name: SAGA_PROCESSOR_NAME,
    checkpointId: dependencies.checkpointId ?? SAGA_CHECKPOINT_ID,
    durability: 'durable',
    eventTypes: SAGA_EVENT_TYPES,
    onFailure: 'skip',
    async handle(trigger) {
      const commands = await commandsFor(trigger, dependencies);
      for (const command of commands) {
        try {
          await dependencies.commandBus.execute(engineCommandOf(command, trigger.tenant));
        } catch (error) {
          // Another engine started this compaction first: it is that engine's to finish, and
          // the continuation follows from its CompactionCompleted on every engine.
          if (!(error instanceof AttemptRunningElsewhereError)) throw error;
        }
      }
      dependencies.onCommands?.(commands.length);
    },
  };
}
