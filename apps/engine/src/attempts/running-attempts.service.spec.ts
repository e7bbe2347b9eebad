import { IdempotencyMismatchError } from '../shared/idempotency';
import { RunningAttempts } from './running-attempts.service';

describe('running attempts', () => {
  it('joins a second run of the same attempt instead of starting it again', async () => {
    const attempts = new RunningAttempts();
    let runs = 0;
    let finish = (): void => undefined;
    const work = () => {
      runs += 1;
      return new Promise<string>((resolve) => {
        finish = () => resolve(`run ${runs}`);
      });
    };
    const first = attempts.run('s', 'a', 'compaction', work);
    const second = attempts.run('s', 'a', 'compaction', work);
    await Promise.resolve();
    finish();
    expect(await Promise.all([first, second])).toEqual(['run 1', 'run 1']);
    expect(runs).toBe(1);
    expect(attempts.runningIds('s')).toEqual([]);
  });

  it('refuses to join a running attempt of another kind or another request', async () => {
    const attempts = new RunningAttempts();
    let finish = (): void => undefined;
    const work = () => new Promise<string>((resolve) => (finish = () => resolve('done')));
    const first = attempts.run('s', 'a', 'compaction', work, 'digest-1');
    const otherRequest = attempts.run('s', 'a', 'compaction', work, 'digest-2');
    const otherKind = attempts.run('s', 'a', 'branch_summary', work, 'digest-1');
    await expect(otherRequest).rejects.toBeInstanceOf(IdempotencyMismatchError);
    await expect(otherKind).rejects.toBeInstanceOf(IdempotencyMismatchError);
    const same = attempts.run('s', 'a', 'compaction', work, 'digest-1');
    await Promise.resolve();
    finish();
    expect(await Promise.all([first, same])).toEqual(['done', 'done']);
  });

  it('aborts only the matching attempts of the session', async () => {
    const attempts = new RunningAttempts();
    const signals = new Map<string, AbortSignal>();
    const hold = (id: string) => (signal: AbortSignal) => {
      signals.set(id, signal);
      return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    };
    const running = [
      attempts.run('s', 'c1', 'compaction', hold('c1')),
      attempts.run('s', 'b1', 'branch_summary', hold('b1')),
      attempts.run('other', 'c2', 'compaction', hold('c2')),
    ];
    await Promise.resolve();

    expect(attempts.abort('s', { kind: 'compaction' })).toEqual(['c1']);
    expect(attempts.abort('s')).toEqual(['b1']);
    expect(signals.get('c2')?.aborted).toBe(false);
    expect(attempts.abort('other', { attemptId: 'c2' })).toEqual(['c2']);
    await Promise.all(running);
  });
});
