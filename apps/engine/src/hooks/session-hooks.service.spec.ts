import type { DiscoveryService } from '@nestjs/core';
import type { CompactionReady } from '@strata/session';
import { SessionHooks } from './session-hooks.service';
import type { SessionBeforeCompactEvent } from './session-hook.types';

const noDiscovery = { getProviders: () => [] } as unknown as DiscoveryService;
const event = {
  sessionId: 's',
  attemptId: 'a',
  trigger: 'manual',
  preparation: {} as CompactionReady,
  branchEntries: [],
  signal: new AbortController().signal,
} satisfies SessionBeforeCompactEvent;
const compaction = (summary: string) => ({
  compaction: { summary, firstKeptEntryId: 'e1', tokensBefore: 1 },
});

describe('session hooks (reference §8)', () => {
  let hooks: SessionHooks;
  const calls: string[] = [];

  beforeEach(() => {
    hooks = new SessionHooks(noDiscovery);
    calls.length = 0;
  });

  describe('for session_before_compact', () => {
    it('lets the last non-empty result win', async () => {
      hooks.register({ session_before_compact: () => compaction('first') });
      hooks.register({ session_before_compact: () => compaction('second') });
      hooks.register({ session_before_compact: () => undefined });
      hooks.register({ session_before_compact: () => ({ cancel: false }) });
      expect(await hooks.session_before_compact(event)).toEqual(compaction('second'));
    });

    it('returns the first cancel at once, without running later handlers', async () => {
      hooks.register({ session_before_compact: () => compaction('first') });
      hooks.register({ session_before_compact: () => ({ cancel: true }) });
      hooks.register({
        session_before_compact: () => {
          calls.push('later');
          return compaction('later');
        },
      });
      expect(await hooks.session_before_compact(event)).toEqual({ cancel: true });
      expect(calls).toEqual([]);
    });

    it('carries on past a handler that throws or rejects', async () => {
      hooks.register({
        session_before_compact: () => {
          throw new Error('broken');
        },
      });
      hooks.register({ session_before_compact: () => Promise.reject(new Error('broken too')) });
      hooks.register({ session_before_compact: () => Promise.resolve(compaction('survivor')) });
      expect(await hooks.session_before_compact(event)).toEqual(compaction('survivor'));
    });
  });

  it('runs handlers by order, then by registration', async () => {
    hooks.register({ session_compact: () => void calls.push('second') }, 0);
    hooks.register({ session_compact: () => void calls.push('third') }, 5);
    hooks.register({ session_compact: () => void calls.push('first') }, -1);
    await hooks.notify('session_compact', {
      sessionId: 's',
      attemptId: 'a',
      compactionEntry: {
        type: 'compaction',
        id: 'c',
        parentId: null,
        timestamp: '',
        summary: '',
        firstKeptEntryId: 'e',
        tokensBefore: 0,
      },
      fromExtension: false,
    });
    expect(calls).toEqual(['first', 'second', 'third']);
  });

  it('stops calling a provider once it is unregistered', async () => {
    const unregister = hooks.register({ session_tree: () => void calls.push('tree') });
    unregister();
    await hooks.notify('session_tree', { sessionId: 's', newLeafId: null, oldLeafId: null });
    expect(calls).toEqual([]);
  });
});
