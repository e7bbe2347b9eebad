// An agent host on Strata's HTTP API, through @strata/client (docs/agent-hosts.md): it keeps no
// history of its own. For each step it reads the context the engine builds, calls the model, and
// appends what happened as complete entries through the client's `SessionHost`: under the
// session's writer lease (taken at the first append, renewed as it nears its end, released when
// the host is done), so no other writer moves the leaf in the middle of a turn, and with
// `expectedLeafId`, so a write that raced it anyway (the lease expired) answers 409 instead of
// forking the tree. A prompt or an answer is built again under the leaf a conflict names; tool
// results stay under their call. When an append answers that it asked for a compaction, the host
// waits for it (the context read with `waitForCompaction`) before the model sees the context again.
//
// Run it against an engine (`npm start`), with a toy model and one toy tool:
//   node bin/run-ts.js docs/examples/agent-host.ts [--url http://localhost:3000] [--api-key <key>]
// or, as a host outside the repository, compiled against the packed @strata/client (the tarball of
// `npm pack` in libs/client): docs/agent-hosts.md, and test/client-package, which does it.
import { randomUUID } from 'node:crypto';
import {
  SessionHost,
  StrataClient,
  type SessionContext as EngineContext,
  type SessionEntry,
} from '@strata/client';

/** A content block of an assistant answer. */
export type AnswerBlock =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'toolCall';
      readonly id: string;
      readonly name: string;
      readonly arguments: Record<string, unknown>;
    };

/** What the model answered, as the host's provider adapter reports it. */
export interface ModelAnswer {
  readonly content: readonly AnswerBlock[];
  readonly stopReason: 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';
  readonly usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
  readonly provider: string;
  readonly model: string;
  readonly errorMessage?: string;
}

/** The context the engine built (`GET /sessions/{id}/context?format=llm`), as far as the host reads it. */
export type SessionContext = Pick<
  EngineContext,
  'leafId' | 'compactionId' | 'messages' | 'tokens' | 'compactionWait'
>;

/** The model behind one function: the context's messages in, an answer out. */
export type Model = (context: SessionContext) => Promise<ModelAnswer>;

/** Runs one tool call; its text result (an error is a result too). */
export type ToolRunner = (call: Extract<AnswerBlock, { type: 'toolCall' }>) => Promise<{
  readonly text: string;
  readonly isError: boolean;
}>;

/** What one turn did. */
export interface TurnReport {
  /** The model's calls in the turn. */
  readonly steps: number;
  /** The automatic compactions the turn's appends asked for (all waited for). */
  readonly compactions: readonly string[];
  /** The final answer's text. */
  readonly answer: string;
}

type Entry = SessionEntry & { readonly id: string; parentId: string | null };

/** How long the host waits for a compaction (the engine allows up to 300,000 ms). */
const COMPACTION_WAIT_MS = 120_000;
/** How long the writer lease lasts from each take or renewal. */
const LEASE_TTL_MS = 60_000;

export class StrataSession {
  private readonly client: StrataClient;
  private readonly host: SessionHost;

  constructor(
    url: string,
    readonly sessionId: string,
    apiKey?: string,
  ) {
    this.client = new StrataClient({ url, ...(apiKey !== undefined ? { apiKey } : {}) });
    this.host = new SessionHost(this.client, sessionId, {
      holder: `example-host-${randomUUID()}`,
      ttlMs: LEASE_TTL_MS,
    });
  }

  /** Starts the session (the same id again is already started: nothing is written twice). */
  async start(cwd: string): Promise<void> {
    await this.client.startSession({ sessionId: this.sessionId, cwd });
  }

  /** The context at the current leaf, after any compaction under way (bounded wait). */
  context(): Promise<SessionContext> {
    return this.client.context(this.sessionId, { format: 'llm', waitForCompaction: COMPACTION_WAIT_MS });
  }

  /**
   * Appends a batch under the lease, with `expectedLeafId` the leaf the context showed: entries
   * built by `make(parentId)` are built again under the leaf a conflict names; fixed entries (tool
   * results under their call) are not moved, and their conflict is thrown. Waits for the
   * compaction the append asked for, if any, by reading the context the next step works from.
   */
  async append(
    leafId: string | null,
    batch: Entry[] | ((parentId: string | null) => Entry[]),
  ): Promise<{ readonly context: SessionContext; readonly compaction: string | undefined }> {
    const answer = await this.host.appendTurn(batch, { expectedLeafId: leafId });
    return { context: await this.context(), compaction: answer.compaction?.attemptId };
  }

  /** Frees the session for other writers. */
  release(): Promise<void> {
    return this.host.release();
  }
}

function entryOf(parentId: string | null, message: Record<string, unknown>): Entry {
  return { type: 'message', id: randomUUID(), parentId, timestamp: new Date().toISOString(), message };
}

/** One user prompt through the agent loop: model, tools, model… until an answer asks for no tool. */
export async function runTurn(
  session: StrataSession,
  prompt: string,
  model: Model,
  runTool: ToolRunner,
): Promise<TurnReport> {
  const compactions: string[] = [];
  const noted = (compaction: string | undefined): void => {
    if (compaction !== undefined) compactions.push(compaction);
  };
  // A compaction the previous turn asked for may still run: the context read waits for it.
  let context = await session.context();
  const prompted = await session.append(context.leafId, (parentId) => [
    entryOf(parentId, { role: 'user', content: prompt, timestamp: Date.now() }),
  ]);
  noted(prompted.compaction);
  context = prompted.context;
  for (let steps = 1; ; steps += 1) {
    const answer = await model(context);
    const message = { role: 'assistant', ...answer, timestamp: Date.now() };
    const calls = answer.content.filter((block) => block.type === 'toolCall');
    const answered = await session.append(context.leafId, (parentId) => [entryOf(parentId, message)]);
    noted(answered.compaction);
    context = answered.context;
    const endsTurn = calls.length === 0 || answer.stopReason === 'error' || answer.stopReason === 'aborted';
    if (endsTurn) {
      const text = answer.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      return { steps, compactions, answer: text };
    }
    // The results go under the answer, in one batch: no compaction comes between them.
    const results: Record<string, unknown>[] = [];
    for (const call of calls) {
      const result = await runTool(call);
      results.push({
        role: 'toolResult',
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: 'text', text: result.text }],
        isError: result.isError,
        timestamp: Date.now(),
      });
    }
    // Under their call, whatever the leaf: a result is never moved away from the call it answers.
    const entries: Entry[] = [];
    for (const result of results) entries.push(entryOf(entries.at(-1)?.id ?? context.leafId, result));
    const withResults = await session.append(context.leafId, entries);
    noted(withResults.compaction);
    context = withResults.context;
  }
}

/** A toy model: it asks for the time once, then answers with it; usage is the context's size. */
export const toyModel: Model = (context) => {
  const last = context.messages.at(-1);
  const usage = { input: context.tokens, output: 20, cacheRead: 0, cacheWrite: 0 };
  const base = { usage, provider: 'example', model: 'toy-1' };
  if (last?.role === 'toolResult') {
    const [block] = (last.content ?? []) as { text?: string }[];
    return Promise.resolve({
      ...base,
      content: [{ type: 'text', text: `It is ${block?.text ?? 'unknown'}.` }],
      stopReason: 'stop',
    });
  }
  return Promise.resolve({
    ...base,
    content: [{ type: 'toolCall', id: `call-${randomUUID()}`, name: 'clock', arguments: {} }],
    stopReason: 'toolUse',
  });
};

/** The toy tool: the time. */
export const clockTool: ToolRunner = (call) =>
  Promise.resolve(
    call.name === 'clock'
      ? { text: new Date().toISOString(), isError: false }
      : { text: `no tool ${call.name}`, isError: true },
  );

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

async function main(): Promise<void> {
  const session = new StrataSession(
    option('--url') ?? 'http://localhost:3000',
    `example-${randomUUID()}`,
    option('--api-key'),
  );
  await session.start(process.cwd());
  for (const prompt of ['What time is it?', 'And now?']) {
    const report = await runTurn(session, prompt, toyModel, clockTool);
    process.stdout.write(`${prompt} → ${report.answer} (${report.steps} model calls)\n`);
  }
  await session.release();
  process.stdout.write(`session ${session.sessionId}\n`);
}

if (process.argv[1] === __filename) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
