// The append's compaction forecast (`CompactionWaits.askedBy`): made on the session as a fresh
// append left it, which is not read again, or on the session read now for an idempotent repeat.
import {
  charsPerFourCounter,
  foldSessionEvents,
  type ActiveSessionState,
  type SessionEntry,
  type SessionEvent,
} from '@strata/session';
import { session } from '@strata/testing';
import type { RunningAttempts } from '../attempts/running-attempts.service';
import type { SessionStreams } from '../session-streams/session-streams.service';
import { parseEngineSettings } from '../settings/engine-settings';
import { CompactionWaits } from './compaction-waits.service';
import { autoCompactionAttemptId } from './saga-ids';
import type { SagaRunner } from './saga-runner.service';

/** With the defaults and a 200,000-token window the threshold is 183,616 (reference §3.2). */
const THRESHOLD = 200000 - 16384;

function foldedState(entries: readonly SessionEntry[], header: SessionEvent & { type: 'SessionStarted' }) {
  const state = foldSessionEvents([
    header,
    ...entries.map((entry): SessionEvent => ({ type: 'EntryAppended', data: { entry } })),
  ]);
  if (state.status !== 'active') throw new Error('the events start no session');
  return state;
}

/** The session streams of the forecast, counting its reads of the session. */
function streamsHolding(state: ActiveSessionState) {
  const reads: string[] = [];
  const streams = {
    state(sessionId: string) {
      reads.push(sessionId);
      return Promise.resolve(state);
    },
  };
  return { streams: streams as unknown as SessionStreams, reads };
}

function waitsOver(streams: SessionStreams): CompactionWaits {
  return new CompactionWaits(
    streams,
    {} as SagaRunner,
    {} as RunningAttempts,
    parseEngineSettings({}),
    charsPerFourCounter,
  );
}

describe('the compaction forecast of an append', () => {
  const builder = session({ sessionId: 'forecast' })
    .user('Go on')
    .assistant('Working on it.', { usage: { input: THRESHOLD + 1 - 100, output: 100 } })
    .user('And now?');
  const header = { type: 'SessionStarted', data: { header: builder.header } } as const;
  const prompt = builder.entries[builder.entries.length - 1]!;
  const appended = [{ eventId: 'event-of-the-prompt', entry: prompt }];
  const expected = {
    attemptId: autoCompactionAttemptId('event-of-the-prompt', 'threshold'),
    trigger: 'threshold',
    outcome: null,
  };

  it('is made on the session a fresh append left, without reading the session again', async () => {
    const left = foldedState(builder.entries, header);
    // the session read now would ask for nothing: it no longer ends at the prompt
    const later = foldedState([...session({ sessionId: 'forecast' }).user('Other').entries], header);
    const { streams, reads } = streamsHolding(later);
    const asked = await waitsOver(streams).askedBy('forecast', 'default', appended, left);
    expect(asked).toMatchObject(expected);
    expect(reads).toEqual([]);
  });

  it('reads the session as it is now for an idempotent repeat', async () => {
    const { streams, reads } = streamsHolding(foldedState(builder.entries, header));
    const asked = await waitsOver(streams).askedBy('forecast', 'default', appended);
    expect(asked).toMatchObject(expected);
    expect(reads).toEqual(['forecast']);
  });

  it('asks for nothing and reads nothing for a batch without a message', async () => {
    const { streams, reads } = streamsHolding(foldedState(builder.entries, header));
    const label = session({ sessionId: 'forecast' }).user('x').label('x-label').entries.at(-1)!;
    const asked = await waitsOver(streams).askedBy('forecast', 'default', [{ eventId: 'e', entry: label }]);
    expect(asked).toBeUndefined();
    expect(reads).toEqual([]);
  });
});
