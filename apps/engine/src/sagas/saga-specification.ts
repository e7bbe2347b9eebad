// TEST SUPPORT. Given / When / Then specifications for the pure sagas (STYLE.md habits 5 and 9):
// given a session (its entries and what the runner would know of it), when a stored event
// arrives, then the saga asks for exactly these commands — no Nest, no store, no mocks.
//
//   SagaSpecification.for(thresholdCompactionSaga)
//     .given(builder.entries, { contextWindow: 200000 })
//     .when(appendedTrigger(builder.entries, 'e0004'))
//     .then([...commands]);
//
// Do not return or await the result of `when(...)`: it has a `then` method.
import {
  sessionModelOf,
  DEFAULT_COMPACTION_SETTINGS,
  DEFAULT_PRUNING_SETTINGS,
  charsPerFourCounter,
  pathToEntry,
  type CompactionTrigger,
  type PrunedResult,
  type SessionEntry,
  type SessionEvent,
} from '@strata/session';
import type { SagaCommand, SagaSessionView, SagaSettings, SagaTrigger, SessionSaga } from './saga-messages';

export const SPEC_SESSION_ID = 'session-under-test';
export const SPEC_RECORDED_AT = Date.parse('2026-02-01T00:00:00.000Z');

export interface GivenSession {
  /** The current leaf; the last entry by default. */
  readonly leafId?: string;
  readonly compaction?: Partial<SagaSettings['compaction']>;
  readonly pruning?: Partial<SagaSettings['pruning']>;
  /** The session's current model; derived from the path by default. */
  readonly currentModel?: string;
  /** 200,000 by default. */
  readonly contextWindow?: number;
  readonly compactionTriggers?: Readonly<Record<string, CompactionTrigger>>;
  readonly prunedResults?: ReadonlyMap<string, PrunedResult>;
  /** Tokens saved by the pruning recorded after the check at each entry (entry id → tokens). */
  readonly pruningSavedAfter?: Readonly<Record<string, number>>;
}

/** The view the runner would load for `entries` (see `SagaSessionView`). */
export function sagaViewOf(entries: readonly SessionEntry[], given: GivenSession = {}): SagaSessionView {
  const byId = new Map(entries.map((entry) => [entry.id, entry] as const));
  const leafId = given.leafId ?? entries[entries.length - 1]?.id;
  const path = leafId === undefined ? [] : pathToEntry(byId, leafId);
  return {
    settings: {
      compaction: { ...DEFAULT_COMPACTION_SETTINGS, ...given.compaction },
      pruning: { ...DEFAULT_PRUNING_SETTINGS, ...given.pruning },
    },
    path,
    prunedResults: given.prunedResults ?? new Map(),
    currentModel: given.currentModel ?? sessionModelOf(path),
    contextWindow: given.contextWindow ?? 200000,
    compactionTriggers: new Map(Object.entries(given.compactionTriggers ?? {})),
    pruningSavedAfter: (entryId) => given.pruningSavedAfter?.[entryId],
    tokenCounter: charsPerFourCounter,
  };
}

function triggerOf(event: SessionEvent, eventId: string): SagaTrigger {
  return {
    sessionId: SPEC_SESSION_ID,
    tenant: 'default',
    eventId,
    position: 1n,
    recordedAt: SPEC_RECORDED_AT,
    event,
  };
}

/** The stored `EntryAppended` event of one of `entries`. */
export function appendedTrigger(
  entries: readonly SessionEntry[],
  entryId: string,
  eventId = `event-of-${entryId}`,
): SagaTrigger {
  const entry = entries.find((candidate) => candidate.id === entryId);
  if (entry === undefined) throw new Error(`no entry ${entryId} in the given session`);
  return triggerOf({ type: 'EntryAppended', data: { entry } }, eventId);
}

/** A stored `CompactionCompleted` event. */
export function compactionCompletedTrigger(
  attemptId: string,
  trigger: CompactionTrigger,
  eventId = `event-of-${attemptId}`,
): SagaTrigger {
  return triggerOf(
    {
      type: 'CompactionCompleted',
      data: {
        attemptId,
        entryId: 'c0001',
        trigger,
        durationMs: 5,
        tokensBefore: 190000,
        estimatedTokensAfter: 9000,
      },
    },
    eventId,
  );
}

export interface SagaThen {
  /** The saga asks for exactly these commands, in this order. */
  then(expected: readonly SagaCommand[]): void;
  /** The saga asks for nothing. */
  thenNothing(): void;
  /** The commands, for finer assertions. */
  readonly commands: readonly SagaCommand[];
}

export const SagaSpecification = {
  for(saga: SessionSaga) {
    return {
      given(entries: readonly SessionEntry[], given: GivenSession = {}) {
        return {
          when(trigger: SagaTrigger): SagaThen {
            const commands = saga.handles(trigger.event)
              ? saga.react(trigger, sagaViewOf(entries, given))
              : [];
            return {
              commands,
              then(expected) {
                expect(commands).toEqual(expected);
              },
              thenNothing() {
                expect(commands).toEqual([]);
              },
            };
          },
        };
      },
    };
  },
};
