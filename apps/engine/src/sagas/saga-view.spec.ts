import {
  charsPerFourCounter,
  foldSessionEvents,
  type ActiveSessionState,
  type SessionEvent,
} from '@strata/session';
import { session } from '@strata/testing';
import { parseEngineSettings } from '../settings/engine-settings';
import { sagaViewOf } from './saga-view';

function foldedState(events: readonly SessionEvent[]): ActiveSessionState {
  const state = foldSessionEvents(events);
  if (state.status !== 'active') throw new Error('the events start no session');
  return state;
}

describe('sagaViewOf', () => {
  const builder = session({ sessionId: 'view-kept' }).editTurns(3);
  const events: SessionEvent[] = [
    { type: 'SessionStarted', data: { header: builder.header } },
    ...builder.entries.map((entry): SessionEvent => ({ type: 'EntryAppended', data: { entry } })),
  ];
  const settings = parseEngineSettings({});

  it('builds the view of one folded state once, for the forecast and the sagas alike', () => {
    const state = foldedState(events);
    const view = sagaViewOf(state, settings, charsPerFourCounter);
    expect(sagaViewOf(state, settings, charsPerFourCounter)).toBe(view);
    expect(view.path.map((entry) => entry.id)).toEqual(builder.entries.map((entry) => entry.id));
  });

  it('builds a new view for a new state, other settings or another counter', () => {
    const before = foldedState(events.slice(0, -1));
    const after = foldedState(events);
    const view = sagaViewOf(before, settings, charsPerFourCounter);
    expect(sagaViewOf(after, settings, charsPerFourCounter).path).toHaveLength(view.path.length + 1);
    expect(sagaViewOf(before, parseEngineSettings({}), charsPerFourCounter)).not.toBe(view);
    const otherCounter = { ...charsPerFourCounter };
    expect(sagaViewOf(before, settings, otherCounter).tokenCounter).toBe(otherCounter);
  });
});
