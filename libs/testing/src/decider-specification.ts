// Given / When / Then specifications for deciders (STYLE.md habits 1 and 5), in the manner of
// emmett's DeciderSpecification: fold the given events from the initial state, decide the
// command, and compare the outcome — without mocks and without a store.
//
//   DeciderSpecification.for(sessionDecider)
//     .given([sessionStarted])
//     .when(appendEntries)
//     .then([entryAppended]);
//
// Do not return or await the result of `when(...)`: it has a `then` method, so a promise
// machinery would mistake it for a thenable.
import type { Decider } from '@strata/event-store';

type ErrorClass<ErrorType> = abstract new (...args: never[]) => ErrorType;

export interface DeciderThen<Event> {
  /** The command produces exactly these events, in this order (deep equality). */
  then(expectedEvents: readonly Event[]): void;
  /** The command is refused with an instance of `errorClass` that satisfies `predicate`. */
  thenThrows<ErrorType extends Error>(
    errorClass: ErrorClass<ErrorType>,
    predicate?: (error: ErrorType) => boolean,
  ): void;
  /** The command is accepted and produces no event (an idempotent repeat, a no-op). */
  thenNothingHappened(): void;
}

export interface DeciderWhen<Command, Event> {
  when(command: Command): DeciderThen<Event>;
}

export interface DeciderGiven<Command, Event> {
  /** The history before the command; `given()` starts from the initial state. */
  given(events?: readonly Event[]): DeciderWhen<Command, Event>;
}

type Decision<Event> =
  | { readonly kind: 'events'; readonly events: readonly Event[] }
  | { readonly kind: 'thrown'; readonly error: unknown };

function describeDecision<Event>(decision: Decision<Event>): string {
  return decision.kind === 'events'
    ? `it produced ${JSON.stringify(decision.events)}`
    : `it threw ${String(decision.error)}`;
}

function specify<State, Command, Event>(
  decider: Decider<State, Command, Event>,
  history: readonly Event[],
  command: Command,
): DeciderThen<Event> {
  const decideOnce = (): Decision<Event> => {
    const state = history.reduce(decider.evolve, decider.initialState());
    try {
      return { kind: 'events', events: decider.decide(command, state) };
    } catch (error) {
      return { kind: 'thrown', error };
    }
  };
  const expectEvents = (): readonly Event[] => {
    const decision = decideOnce();
    if (decision.kind === 'thrown') {
      throw new Error(`expected the command to be accepted, but ${describeDecision(decision)}`, {
        cause: decision.error,
      });
    }
    return decision.events;
  };
  return {
    then(expectedEvents) {
      expect(expectEvents()).toEqual(expectedEvents);
    },
    thenNothingHappened() {
      expect(expectEvents()).toEqual([]);
    },
    thenThrows(errorClass, predicate) {
      const decision = decideOnce();
      if (decision.kind === 'events') {
        throw new Error(
          `expected the command to throw ${errorClass.name}, but ${describeDecision(decision)}`,
        );
      }
      const { error } = decision;
      if (!(error instanceof errorClass)) {
        throw new Error(`expected ${errorClass.name}, but ${describeDecision(decision)}`, { cause: error });
      }
      if (predicate && !predicate(error)) {
        throw new Error(`the error did not match the predicate: ${String(error)}`, { cause: error });
      }
    },
  };
}

export const DeciderSpecification = {
  for<State, Command, Event>(decider: Decider<State, Command, Event>): DeciderGiven<Command, Event> {
    return {
      given: (events = []) => ({ when: (command) => specify(decider, events, command) }),
    };
  },
};
