// An agent host on Strata's HTTP API, through @strata/client (docs/agent-hosts.md): it keeps no
// history of its own. For each step it reads the context the engine builds, calls the model, and
// appends what happened as complete entries under the leaf it read (`expectedLeafId`), so a write that raced another
// answers 409 instead of forking the tree; it then reads the context again and retries. When an
// append answers that it asked for a compaction, the host waits for it (the context read with
// `waitForCompaction`) before the model sees the context again.
//
// Run it against an engine (`npm start`), with a toy model and one toy tool:
//   node bin/run-ts.js docs/examples/agent-host.ts [--url http://localhost:3000] [--api-key <key>]
// or, as a host outside the repository, compiled against the packed @strata/client (the tarball of
// `npm pack` in libs/client): docs/agent-hosts.md, and test/client-package, which does it.
import { randomUUID } from 'node:crypto';
import {
  StrataApiError,
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
/** How many times an append is retried after the session moved under it. */
const MAX_APPEND_ATTEMPTS = 5;

export class StrataSession {
  private readonly client: StrataClient;

  constructor(
    url: string,
    readonly sessionId: string,
    apiKey?: string,
  ) {
    this.client = new StrataClient({ url, ...(apiKey !== undefined ? { apiKey } : {}) });
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
   * Appends entries made by `make(parentId)` under the leaf the context shows, with
   * `expectedLeafId`; on 409 `leaf_conflict` (another write moved the leaf first) reads the context
   * again and makes them again under the new leaf (tool results are taken there only while their
   * call is still pending on the new leaf's path). Waits for the compaction the append asked for, if any.
   */
  async append(
    leafId: string | null,
    make: (parentId: string | null) => Entry[],
  ): Promise<{ readonly context: SessionContext; readonly compaction: string | undefined }> {
    let parentId = leafId;
    for (let attempt = 1; ; attempt += 1) {
      const entries = make(parentId);
      try {
        // The same key makes a retry after a lost answer write nothing twice (the client resends it).
        const answer = await this.client.append(this.sessionId, entries, {
          expectedLeafId: parentId,
          ...(entries[0] !== undefined ? { idempotencyKey: entries[0].id } : {}),
        });
        // Read the context the next step works from; it waits when a compaction is under way.
        return { context: await this.context(), compaction: answer.compaction?.attemptId };
      } catch (error) {
        // A result whose call is no longer pending under the new leaf (`tool_result_unpaired`)
        // cannot be moved there: the other writer broke the tool loop, and trying again is no use.
        const moved =
          error instanceof StrataApiError && error.status === 409 && error.reason === 'leaf_conflict';
        if (!moved || attempt >= MAX_APPEND_ATTEMPTS) throw error;
        parentId = (await this.context()).leafId;
      }
    }
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
    const withResults = await session.append(context.leafId, (parentId) => {
      const entries: Entry[] = [];
      for (const result of results) entries.push(entryOf(entries.at(-1)?.id ?? parentId, result));
      return entries;
    });
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
  process.stdout.write(`session ${session.sessionId}\n`);
}

if (process.argv[1] === __filename) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
