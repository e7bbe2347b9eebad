import { RestartBackoff } from './restart-backoff';

describe('a restart backoff', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('restarts after pauses that double up to the longest, one pending at a time', () => {
    const restarts: number[] = [];
    const backoff = new RestartBackoff(
      () => {
        restarts.push(Date.now());
        return Promise.resolve();
      },
      100,
      300,
    );
    const start = Date.now();
    backoff.schedule();
    backoff.schedule();
    jest.advanceTimersByTime(100);
    expect(restarts.map((at) => at - start)).toEqual([100]);
    for (let round = 0; round < 3; round += 1) {
      backoff.schedule();
      jest.runOnlyPendingTimers();
    }
    expect(restarts.map((at) => at - start)).toEqual([100, 300, 600, 900]);
    expect(backoff.pendingDelayMs).toBe(300);
  });

  it('never restarts once closed, not even the pending restart', () => {
    const restart = jest.fn(() => Promise.resolve());
    const backoff = new RestartBackoff(restart, 100, 300);
    backoff.schedule();
    backoff.close();
    backoff.schedule();
    jest.advanceTimersByTime(10_000);
    expect(restart).not.toHaveBeenCalled();
  });
});
