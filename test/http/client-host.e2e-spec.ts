// End to end over real HTTP: the client's host helpers. Entry builders make entries the engine
// takes; `SessionHost.appendTurn` holds the writer lease, rebuilds a batch built from the leaf
// under the leaf a conflict names, and never moves a fixed batch (tool results) to another
// parent. Two hosts on two clients writing turns concurrently lose nothing and keep every tool
// result with its call.
import {
  SessionHost,
  StrataApiError,
  StrataClient,
  assistantEntry,
  toolCallsOf,
  toolResultEntry,
  userEntry,
} from '@strata/client';
import { startHttpEngine, storedEventsOf, type HttpHarness } from './http-harness';
import { separatedResults, storedEntries } from './host-turns';

const answer = {
  provider: 'toy',
  model: 'toy-1',
  usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 },
};

describe('given an engine and the client host helpers', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine();
  });

  afterAll(() => engine.close());

  async function started(sessionId: string): Promise<StrataClient> {
    const client = new StrataClient({ url: engine.url });
    await client.startSession({ sessionId, cwd: '/work' });
    return client;
  }

  /** One turn: a prompt and a tool call (built under the leaf), the result (fixed), the final answer (fixed). */
  async function writeTurn(host: SessionHost, name: string): Promise<string[]> {
    const ids: string[] = [];
    const opened = await host.appendTurn((leafId) => {
      const prompt = userEntry(leafId, `${name}: read a.ts`);
      const call = assistantEntry(prompt.id, {
        ...answer,
        stopReason: 'toolUse',
        content: [{ type: 'toolCall', id: `call-${prompt.id}`, name: 'read', arguments: { path: 'a.ts' } }],
      });
      return [prompt, call];
    });
    ids.push(...opened.entryIds);
    const callId = opened.leafId!;
    const result = toolResultEntry(callId, {
      toolCallId: `call-${opened.entryIds[0]}`,
      toolName: 'read',
      text: 'ok',
    });
    ids.push(...(await host.appendTurn([result])).entryIds);
    const done = assistantEntry(result.id, {
      ...answer,
      stopReason: 'stop',
      content: [{ type: 'text', text: 'Read.' }],
    });
    ids.push(...(await host.appendTurn([done])).entryIds);
    return ids;
  }

  it('builds entries the engine takes, with the tool calls of an answer at hand', async () => {
    const client = await started('helpers-1');
    const host = new SessionHost(client, 'helpers-1', { holder: 'solo', ttlMs: 10_000 });
    const ids = await writeTurn(host, 'solo');
    await host.release();
    expect(ids).toHaveLength(4);
    const call = assistantEntry('x', {
      ...answer,
      stopReason: 'toolUse',
      content: [{ type: 'toolCall', id: 'c9', name: 'read', arguments: {} }],
    });
    expect(toolCallsOf(call).map((block) => block.id)).toEqual(['c9']);
    const types = (await storedEventsOf(engine, 'helpers-1')).map((event) => event.type);
    expect(types.filter((type) => type.startsWith('Lease'))).toEqual(['LeaseTaken', 'LeaseReleased']);
  });

  it('renews the lease near its end and keeps its token', async () => {
    const client = await started('helpers-2');
    const host = new SessionHost(client, 'helpers-2', {
      holder: 'renewer',
      ttlMs: 60_000,
      renewWithinMs: 60_000,
    });
    const first = await host.holdLease();
    const second = await host.holdLease();
    expect(second.token).toBe(first.token);
    expect(await storedEventsOf(engine, 'helpers-2', 'LeaseRenewed')).toHaveLength(1);
  });

  it('rebuilds a batch built from the leaf after a conflict, and throws the conflict of a fixed batch', async () => {
    const client = await started('helpers-3');
    const host = new SessionHost(client, 'helpers-3', { holder: 'h', ttlMs: 10_000 });
    const first = await host.appendTurn((leafId) => [userEntry(leafId, 'one')]);
    const lease = await host.holdLease();
    // another write under the same lease (a second process of the host) moves the leaf
    const moved = await client.append('helpers-3', [userEntry(first.leafId, 'elsewhere')], {
      leaseToken: lease.token,
    });

    const fixed = host.appendTurn([userEntry(first.leafId, 'stale parent')]);
    await expect(fixed).rejects.toMatchObject({ reason: 'leaf_conflict', currentLeafId: moved.leafId });
    const rebuilt = await host.appendTurn((leafId) => [userEntry(leafId, 'two')]);
    const stored = await storedEntries(engine, 'helpers-3');
    expect(stored.find((entry) => entry.id === rebuilt.entryIds[0])?.parentId).toBe(moved.leafId);
  });

  it('lets two hosts on two clients write turns concurrently: nothing lost, no result apart from its call', async () => {
    const sessionId = 'helpers-two-hosts';
    await started(sessionId);
    const runHost = async (name: string): Promise<string[]> => {
      const host = new SessionHost(new StrataClient({ url: engine.url }), sessionId, {
        holder: name,
        ttlMs: 10_000,
      });
      const written: string[] = [];
      for (let turn = 0; turn < 6; turn += 1) {
        const deadline = Date.now() + 30_000;
        for (;;) {
          try {
            await host.holdLease();
            break;
          } catch (error) {
            if (!(error instanceof StrataApiError) || error.reason !== 'lease_held' || Date.now() > deadline)
              throw error;
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        }
        written.push(...(await writeTurn(host, name)));
        await host.release();
      }
      return written;
    };

    const accepted = (await Promise.all([runHost('alpha'), runHost('beta')])).flat();

    const stored = await storedEntries(engine, sessionId);
    expect(accepted).toHaveLength(2 * 6 * 4);
    const storedIds = new Set(stored.map((entry) => entry.id));
    expect(accepted.filter((id) => !storedIds.has(id))).toEqual([]);
    expect(separatedResults(stored)).toEqual([]);
  });
});
