import type { AuditAttempt, SessionSummary } from '@strata/client/browser';
import { axisTicks, compactionsPerDay, shortCount, tokensByTenant } from './chart-data';

function attempt(
  endedAt: string | null,
  trigger: AuditAttempt['trigger'],
  outcome = 'completed',
): AuditAttempt {
  return { kind: 'compaction', outcome, trigger, endedAt } as AuditAttempt;
}

function summary(tenant: string, input: number, output: number, cacheRead = 0): SessionSummary {
  const usage = { input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead, cost: 0 };
  return { tenant, usage } as SessionSummary;
}

describe('given completed, failed and unended compactions over three days', () => {
  const days = compactionsPerDay([
    attempt('2026-03-01T10:00:00.000Z', 'threshold'),
    attempt('2026-03-01T23:59:59.000Z', 'manual'),
    attempt('2026-03-03T00:00:00.000Z', 'overflow'),
    attempt('2026-03-02T12:00:00.000Z', 'threshold', 'failed'),
    attempt(null, 'threshold', 'pending'),
  ]);

  it('counts the completed ones by UTC day and trigger, the empty day between them included', () => {
    expect(days).toEqual([
      { day: '2026-03-01', total: 2, byTrigger: { threshold: 1, overflow: 0, manual: 1 } },
      { day: '2026-03-02', total: 0, byTrigger: { threshold: 0, overflow: 0, manual: 0 } },
      { day: '2026-03-03', total: 1, byTrigger: { threshold: 0, overflow: 1, manual: 0 } },
    ]);
  });

  it('keeps only the latest days when asked for fewer', () => {
    expect(
      compactionsPerDay(
        [attempt('2026-03-01T00:00:00Z', 'manual'), attempt('2026-03-10T00:00:00Z', 'manual')],
        3,
      ).map((day) => day.day),
    ).toEqual(['2026-03-08', '2026-03-09', '2026-03-10']);
  });
});

describe('given sessions of two tenants', () => {
  it('sums their reported usage by tenant and kind, largest first', () => {
    expect(tokensByTenant([summary('a', 10, 5), summary('b', 100, 50, 7), summary('a', 1, 1)])).toEqual([
      {
        tenant: 'b',
        sessions: 1,
        total: 157,
        byKind: { input: 100, output: 50, cacheRead: 7, cacheWrite: 0 },
      },
      { tenant: 'a', sessions: 2, total: 17, byKind: { input: 11, output: 6, cacheRead: 0, cacheWrite: 0 } },
    ]);
  });
});

describe('the axes', () => {
  it('tick at round steps up to at least the largest value', () => {
    expect(axisTicks(128_000)).toEqual([0, 50_000, 100_000, 150_000]);
    expect(axisTicks(3)).toEqual([0, 1, 2, 3]);
    expect(axisTicks(0)).toEqual([0, 1]);
    expect(axisTicks(2)).toEqual([0, 0.5, 1, 1.5, 2]);
    expect(axisTicks(2, 4, true)).toEqual([0, 1, 2]);
    expect([shortCount(950), shortCount(12_500), shortCount(1_500_000)]).toEqual(['950', '12.5k', '1.5M']);
  });
});
