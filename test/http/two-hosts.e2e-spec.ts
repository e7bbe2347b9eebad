// End to end over real HTTP: two hosts writing turns on one session at the same time. Each turn
// is a prompt and a tool call, then the tool result, then the answer: three appends, each under
// the leaf the host knows (`expectedLeafId`). With the writer lease, a host takes it for its turn
// and no other write comes between; without it, a host that meets a leaf conflict retries as the
// issue's host did (the result re-parented under the new leaf), and the engine refuses what would
// separate a result from its call. Either way: every stored tool result answers a call pending at
// its parent, and every entry the engine accepted is stored.
import type { SessionEntry } from '@strata/session';
import { problemOf, startHttpEngine, type HttpHarness } from './http-harness';
import {
  answerEntry,
  callEntry,
  resultEntry,
  separatedResults,
  storedEntries,
  userEntry,
} from './host-turns';

const TURNS_PER_HOST = 8;

interface HostLog {
  accepted: string[];
  refusals: Record<string, number>;
}

describe('given one session and two hosts writing turns concurrently', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine();
  });

  afterAll(() => engine.close());

  async function startSession(sessionId: string): Promise<void> {
    const started = await engine.request('POST', '/sessions', { body: { sessionId, cwd: '/work' } });
    expect(started.status).toBe(201);
  }

  /** Appends under the leaf the host knows; a leaf conflict moves it to the leaf the engine names. */
  function hostOf(sessionId: string, log: HostLog) {
    let leaf: string | null = null;
    return {
      get leaf() {
        return leaf;
      },
      set leaf(value: string | null) {
        leaf = value;
      },
      async append(entries: SessionEntry[], extra: Record<string, unknown> = {}) {
        const response = await engine.request('POST', `/sessions/${sessionId}/entries`, {
          body: { entries, expectedLeafId: leaf, ...extra },
        });
        if (response.status === 200) {
          const body = response.body as { entryIds: string[]; leafId: string };
          log.accepted.push(...body.entryIds);
          leaf = body.leafId;
          return { ok: true as const };
        }
        const problem = problemOf(response);
        const reason = String(problem.reason);
        log.refusals[reason] = (log.refusals[reason] ?? 0) + 1;
        if (reason === 'leaf_conflict') leaf = problem.currentLeafId as string | null;
        return { ok: false as const, reason };
      },
    };
  }

  async function leaseFor(sessionId: string, holder: string): Promise<string> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const response = await engine.request('POST', `/sessions/${sessionId}/lease`, {
        body: { holder, ttlMs: 30_000 },
      });
      if (response.status === 200) return (response.body as { token: string }).token;
      expect(problemOf(response)).toMatchObject({ reason: 'lease_held' });
      if (Date.now() > deadline) throw new Error(`${holder} never got the lease`);
      // the other host holds it for one turn: ask again when that turn is likely written
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('with the lease: each turn is written whole, no write meets a conflict, nothing is lost', async () => {
    const sessionId = 'two-hosts-lease';
    await startSession(sessionId);
    const logs: HostLog[] = [];

    const runHost = async (name: string) => {
      const log: HostLog = { accepted: [], refusals: {} };
      logs.push(log);
      const host = hostOf(sessionId, log);
      for (let turn = 0; turn < TURNS_PER_HOST; turn += 1) {
        const leaseToken = await leaseFor(sessionId, name);
        const id = `${name}-${turn}`;
        let opened = await host.append(
          [userEntry(`${id}-u`, host.leaf), callEntry(`${id}-a`, `${id}-u`, `${id}-c`)],
          {
            leaseToken,
          },
        );
        // the host's leaf is from before the other host's turn: the conflict names the leaf to write under
        if (!opened.ok) {
          expect(opened.reason).toBe('leaf_conflict');
          opened = await host.append(
            [userEntry(`${id}-u`, host.leaf), callEntry(`${id}-a`, `${id}-u`, `${id}-c`)],
            {
              leaseToken,
            },
          );
        }
        expect(opened).toEqual({ ok: true });
        expect(await host.append([resultEntry(`${id}-t`, `${id}-a`, `${id}-c`)], { leaseToken })).toEqual({
          ok: true,
        });
        expect(await host.append([answerEntry(`${id}-f`, `${id}-t`)], { leaseToken })).toEqual({ ok: true });
        const released = await engine.request('DELETE', `/sessions/${sessionId}/lease?token=${leaseToken}`);
        expect(released.status).toBe(204);
      }
    };
    await Promise.all([runHost('alpha'), runHost('beta')]);

    const stored = await storedEntries(engine, sessionId);
    expect(separatedResults(stored)).toEqual([]);
    const storedIds = new Set(stored.map((entry) => entry.id));
    const accepted = logs.flatMap((log) => log.accepted);
    expect(accepted).toHaveLength(2 * TURNS_PER_HOST * 4);
    expect(accepted.filter((id) => !storedIds.has(id))).toEqual([]);
    // one line: every entry but the first has a parent, and no entry has two children
    const parents = stored.map((entry) => entry.parentId);
    expect(new Set(parents).size).toBe(parents.length);
  });

  it('without the lease: re-parented results are refused, never stored apart from their calls', async () => {
    const sessionId = 'two-hosts-no-lease';
    await startSession(sessionId);
    const logs: HostLog[] = [];

    const runHost = async (name: string) => {
      const log: HostLog = { accepted: [], refusals: {} };
      logs.push(log);
      const host = hostOf(sessionId, log);
      for (let turn = 0; turn < TURNS_PER_HOST; turn += 1) {
        const id = `${name}-${turn}`;
        let opened = await host.append([
          userEntry(`${id}-u`, host.leaf),
          callEntry(`${id}-a`, `${id}-u`, `${id}-c`),
        ]);
        for (let retry = 0; !opened.ok && retry < 20; retry += 1) {
          opened = await host.append([
            userEntry(`${id}-u`, host.leaf),
            callEntry(`${id}-a`, `${id}-u`, `${id}-c`),
          ]);
        }
        if (!opened.ok) continue;
        // the retry: on a conflict, the result again under the new leaf, whatever it is
        let result = await host.append([resultEntry(`${id}-t`, `${id}-a`, `${id}-c`)]);
        for (let retry = 0; !result.ok && result.reason === 'leaf_conflict' && retry < 20; retry += 1) {
          result = await host.append([resultEntry(`${id}-t`, host.leaf ?? `${id}-a`, `${id}-c`)]);
        }
        if (result.ok) await host.append([answerEntry(`${id}-f`, `${id}-t`)]);
      }
    };
    await Promise.all([runHost('alpha'), runHost('beta')]);

    const stored = await storedEntries(engine, sessionId);
    expect(separatedResults(stored)).toEqual([]);
    const storedIds = new Set(stored.map((entry) => entry.id));
    const accepted = logs.flatMap((log) => log.accepted);
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.filter((id) => !storedIds.has(id))).toEqual([]);
    expect(new Set(accepted).size).toBe(accepted.length);
  });
});
