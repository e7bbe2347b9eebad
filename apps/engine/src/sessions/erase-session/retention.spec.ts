// The retention pass's choice of sessions: each tenant with a rule gets an equal part of a
// bounded pass, in the order given (the service rotates it), only sessions idle past the rule.
import { retentionCandidates, type IdleSessionFinder } from './retention';

const NOW = Date.parse('2026-06-01T00:00:00.000Z');
const DAY_MS = 86_400_000;

/** Sessions per tenant, each idle for the given days. */
function finder(idleDays: Readonly<Record<string, readonly number[]>>): {
  find: IdleSessionFinder;
  asked: { tenant: string; idleBefore: string; limit: number }[];
} {
  const asked: { tenant: string; idleBefore: string; limit: number }[] = [];
  const find: IdleSessionFinder = (tenant, idleBefore, limit) => {
    asked.push({ tenant, idleBefore, limit });
    const sessions = (idleDays[tenant] ?? [])
      .map((days, index) => ({
        sessionId: `${tenant}-${index}`,
        lastActivityAt: new Date(NOW - days * DAY_MS).toISOString(),
      }))
      .filter((candidate) => candidate.lastActivityAt < idleBefore)
      .sort((a, b) => a.lastActivityAt.localeCompare(b.lastActivityAt))
      .slice(0, limit);
    return Promise.resolve(sessions);
  };
  return { find, asked };
}

describe('retentionCandidates', () => {
  it('asks each tenant for the sessions idle past its own rule', async () => {
    const { find, asked } = finder({ alpha: [40, 10, 31], beta: [400, 100] });
    const candidates = await retentionCandidates({ alpha: 30, beta: 365 }, NOW, find, 100);
    expect(candidates.map((candidate) => [candidate.sessionId, candidate.days])).toEqual([
      ['alpha-0', 30],
      ['alpha-2', 30],
      ['beta-0', 365],
    ]);
    expect(asked.map((question) => [question.tenant, question.idleBefore])).toEqual([
      ['alpha', new Date(NOW - 30 * DAY_MS).toISOString()],
      ['beta', new Date(NOW - 365 * DAY_MS).toISOString()],
    ]);
  });

  it('shares a bounded pass equally, so one tenant with many idle sessions cannot take it all', async () => {
    const many = Array.from({ length: 50 }, () => 90);
    const { find } = finder({ alpha: many, beta: [90, 90], gamma: many });
    const candidates = await retentionCandidates({ alpha: 30, beta: 30, gamma: 30 }, NOW, find, 9);
    const perTenant = (tenant: string) =>
      candidates.filter((candidate) => candidate.tenant === tenant).length;
    expect([perTenant('alpha'), perTenant('beta'), perTenant('gamma')]).toEqual([3, 2, 3]);
    expect(candidates.length).toBeLessThanOrEqual(9);
  });

  it('follows the order given, so the tenant first in a pass changes between passes', async () => {
    const many = Array.from({ length: 10 }, () => 90);
    const { find } = finder({ alpha: many, beta: many });
    const first = await retentionCandidates({ alpha: 30, beta: 30 }, NOW, find, 3, ['beta', 'alpha']);
    expect(first.map((candidate) => candidate.tenant)).toEqual(['beta', 'alpha']);
    expect(await retentionCandidates({ alpha: 30 }, NOW, find, 0)).toEqual([]);
    expect(await retentionCandidates({}, NOW, find, 10)).toEqual([]);
  });
});
