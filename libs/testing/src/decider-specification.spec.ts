import type { Decider } from '@strata/event-store';
import { DeciderSpecification } from './decider-specification';

type CounterEvent = { readonly type: 'Incremented'; readonly data: { readonly by: number } };
type CounterCommand = { readonly type: 'Increment'; readonly data: { readonly by: number } };

class CounterLimitError extends Error {}

const counter: Decider<number, CounterCommand, CounterEvent> = {
  initialState: () => 0,
  evolve: (total, event) => total + event.data.by,
  decide: (command, total) => {
    if (command.data.by === 0) return [];
    if (total + command.data.by > 10) throw new CounterLimitError(`limit passed at ${total}`);
    return [{ type: 'Incremented', data: { by: command.data.by } }];
  },
};

const spec = DeciderSpecification.for(counter);
const increment = (by: number): CounterCommand => ({ type: 'Increment', data: { by } });
const incremented = (by: number): CounterEvent => ({ type: 'Incremented', data: { by } });

describe('a decider specification', () => {
  it('passes when the command produces the expected events from the folded history', () => {
    spec
      .given([incremented(4)])
      .when(increment(3))
      .then([incremented(3)]);
  });

  it('fails when the events differ', () => {
    expect(() =>
      spec
        .given()
        .when(increment(3))
        .then([incremented(2)]),
    ).toThrow();
  });

  it('fails an expectation of events when the command throws', () => {
    expect(() =>
      spec
        .given([incremented(9)])
        .when(increment(3))
        .then([incremented(3)]),
    ).toThrow(/expected the command to be accepted/);
  });

  it('passes thenThrows with the right class and a matching predicate', () => {
    spec
      .given([incremented(9)])
      .when(increment(3))
      .thenThrows(CounterLimitError, (error) => error.message.includes('at 9'));
  });

  it('fails thenThrows when nothing is thrown, the class differs or the predicate does not hold', () => {
    expect(() => spec.given().when(increment(1)).thenThrows(CounterLimitError)).toThrow(/but it produced/);
    expect(() =>
      spec
        .given([incremented(9)])
        .when(increment(3))
        .thenThrows(TypeError),
    ).toThrow(/expected TypeError/);
    expect(() =>
      spec
        .given([incremented(9)])
        .when(increment(3))
        .thenThrows(CounterLimitError, () => false),
    ).toThrow(/did not match/);
  });

  it('tells a no-op from a change', () => {
    spec.given().when(increment(0)).thenNothingHappened();
    expect(() => spec.given().when(increment(1)).thenNothingHappened()).toThrow();
  });
});
