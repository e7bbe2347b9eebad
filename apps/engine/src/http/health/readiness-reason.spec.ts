import { notReadyOf } from './readiness-reason';

describe('the reason /ready gives for not being ready', () => {
  it('is none once the store answers and the read models are live', () => {
    expect(notReadyOf(true, 'live')).toBeUndefined();
  });

  it('names the store first when it does not answer, whatever the read models do', () => {
    for (const state of ['live', 'catching_up', 'failed', 'stopped', 'idle'] as const) {
      expect(notReadyOf(false, state)).toMatchObject({ reason: 'store_unavailable', retryAfterSeconds: 5 });
    }
  });

  it('asks for a short wait while the read models catch up', () => {
    expect(notReadyOf(true, 'catching_up')).toMatchObject({ reason: 'catching_up', retryAfterSeconds: 1 });
  });

  it('tells a failed runner, which restarts by itself, from a stopped one', () => {
    expect(notReadyOf(true, 'failed')).toMatchObject({ reason: 'read_models_failed', retryAfterSeconds: 5 });
    expect(notReadyOf(true, 'stopped')).toMatchObject({ reason: 'read_models_stopped' });
    expect(notReadyOf(true, 'idle')).toMatchObject({ reason: 'read_models_stopped' });
  });
});
