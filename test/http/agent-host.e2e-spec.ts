// End to end over real HTTP: the agent host of docs/examples/agent-host.ts (docs/agent-hosts.md)
// against a real engine. A turn with a tool call whose last answer crosses the threshold is
// compacted at the end of the turn, the host waits for it, and the next turn starts from the
// compacted context; the host holds the session's writer lease through its turns, so another
// writer is refused until it releases it, and the tree stays one line. The example also runs as
// a program.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ScriptedSummarizer } from '@strata/testing';
import {
  StrataSession,
  clockTool,
  runTurn,
  type Model,
  type ModelAnswer,
  type ToolRunner,
} from '../../docs/examples/agent-host';
import { startHttpEngine, type HttpHarness } from './http-harness';

/** A 10,000-token window less a 2,000-token reserve: the threshold is 8,000. */
const settings = {
  compaction: { keepRecentTokens: 250, reserveTokens: 2000, autoContinue: false },
  models: { defaultContextWindow: 10000 },
};

interface TreeNode {
  readonly id: string;
  readonly type: string;
  readonly parentId: string | null;
  readonly childIds: readonly string[];
}

/** A scripted model: a tool call, then an answer; the usage each reports is scripted too. */
function scriptedModel(inputs: readonly number[]): { model: Model; calls: number[] } {
  const calls: number[] = [];
  const model: Model = (context) => {
    calls.push(context.messages.length);
    const input = inputs[calls.length - 1] ?? 1000;
    const usage = { input, output: 50, cacheRead: 0, cacheWrite: 0 };
    const base = { usage, provider: 'example', model: 'scripted-1' };
    const last = context.messages.at(-1);
    const answer: ModelAnswer =
      last?.role === 'toolResult'
        ? { ...base, content: [{ type: 'text', text: 'x'.repeat(2000) }], stopReason: 'stop' }
        : {
            ...base,
            content: [{ type: 'toolCall', id: `call-${calls.length}`, name: 'clock', arguments: {} }],
            stopReason: 'toolUse',
          };
    return Promise.resolve(answer);
  };
  return { model, calls };
}

describe('given the example agent host and an engine with a small window', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings, summarizers: [new ScriptedSummarizer()] });
  });

  afterAll(() => engine.close());

  async function treeOf(sessionId: string): Promise<{ leafId: string; nodes: TreeNode[] }> {
    return (await engine.request('GET', `/sessions/${sessionId}/tree`)).body as {
      leafId: string;
      nodes: TreeNode[];
    };
  }

  it('compacts at the end of the turn that crossed the threshold, and the next turn starts from the summary', async () => {
    const session = new StrataSession(engine.url, 'host-threshold');
    await session.start('/work/project');
    const { model } = scriptedModel([3000, 8600, 1500, 1600]);

    const first = await runTurn(session, 'What time is it? '.repeat(100), model, clockTool);
    expect(first.steps).toBe(2);
    expect(first.compactions).toHaveLength(1);

    const afterFirst = await session.context();
    expect(afterFirst.compactionId).not.toBeNull();
    expect(afterFirst.leafId).toBe(afterFirst.compactionId);
    const attempts = await engine.request('GET', '/sessions/host-threshold/attempts');
    expect(attempts.body).toMatchObject({
      items: [{ attemptId: first.compactions[0], trigger: 'threshold', outcome: 'completed' }],
    });

    const second = await runTurn(session, 'And now?', model, clockTool);
    expect(second).toMatchObject({ steps: 2, compactions: [] });
    const tree = await treeOf('host-threshold');
    const compaction = tree.nodes.find((node) => node.type === 'compaction');
    // The second prompt went under the compaction: the host read the leaf after waiting.
    expect(compaction?.childIds).toHaveLength(1);
    expect(tree.nodes.every((node) => node.childIds.length <= 1)).toBe(true);
  });

  it('holds the writer lease through the turn: another writer is refused, the tree stays one line', async () => {
    const session = new StrataSession(engine.url, 'host-raced');
    await session.start('/work/project');
    const { model } = scriptedModel([2000, 2100]);
    let refused: { status: number; body: unknown } | undefined;
    // While the tool runs, someone tries to label the answer: without the lease's token, refused.
    const racingTool: ToolRunner = async (call) => {
      const tree = await treeOf('host-raced');
      refused = await engine.request('POST', '/sessions/host-raced/labels', {
        body: { targetId: tree.leafId, label: 'looked at' },
      });
      return clockTool(call);
    };

    const report = await runTurn(session, 'What time is it?', model, racingTool);
    expect(report.steps).toBe(2);
    expect(refused).toMatchObject({ status: 409, body: { reason: 'lease_held' } });
    const tree = await treeOf('host-raced');
    expect(tree.nodes.every((node) => node.childIds.length <= 1)).toBe(true);
    const context = await session.context();
    expect(context.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
    ]);
    // Released: the other writer's label goes through now.
    await session.release();
    const labelled = await engine.request('POST', '/sessions/host-raced/labels', {
      body: { targetId: tree.leafId, label: 'looked at' },
    });
    expect(labelled.status).toBe(200);
  });

  it('runs as a program with its toy model and tool', async () => {
    const root = join(__dirname, '..', '..');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(root, 'bin', 'run-ts.js'), join(root, 'docs', 'examples', 'agent-host.ts'), '--url', engine.url],
      { cwd: root, timeout: 60_000 },
    );
    expect(stdout).toMatch(/^What time is it\? → It is \d{4}-\d\d-\d\dT.*\(2 model calls\)$/m);
    expect(stdout).toMatch(/^And now\? → It is .*\(2 model calls\)$/m);
  });
});
