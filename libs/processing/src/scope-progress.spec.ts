import { ScopeProgress } from './scope-progress';

describe('the progress of one scope of events', () => {
  describe('given events of one tenant that finish out of order (its streams run side by side)', () => {
    it('has not reached a position while an event at or below it is unfinished, whatever finished after it', () => {
      const progress = new ScopeProgress();
      const first = progress.opened('acme', 1n);
      const second = progress.opened('acme', 2n);
      progress.finished(second, 1);
      expect(progress.reached('acme', 1n, 1)).toBe(false);
      expect(progress.reached('acme', 2n, 1)).toBe(false);
      progress.finished(first, 2);
      expect(progress.reached('acme', 2n, 1)).toBe(false);
      expect(progress.reached('acme', 2n, 2)).toBe(true);
    });
  });

  describe('given a scope with nothing unfinished', () => {
    it('has reached any position once its last finish is flushed, and another scope is not held back by it', () => {
      const progress = new ScopeProgress();
      const busy = progress.opened('busy', 1n);
      const quick = progress.opened('quick', 2n);
      progress.finished(quick, 1);
      expect(progress.reached('quick', 5n, 1)).toBe(true);
      expect(progress.reached('busy', 1n, 1)).toBe(false);
      expect(progress.reached('never-seen', 9n, 0)).toBe(true);
      progress.finished(busy, 2);
      progress.prune(2n, 2);
      expect(progress.reached('busy', 1n, 0)).toBe(true);
    });
  });
});
