// A deterministic generator of long, realistic agent sessions for the benchmarks: user turns
// with thinking, tool calls and tool results of varied size, bash runs, model and thinking
// changes, labels, extension entries, an occasional branch with its summary, and a compaction
// whenever the context estimate passes a threshold (as auto-compaction would), keeping about
// `keepRecentTokens` of recent turns. Built with the SessionBuilder of @strata/testing.
import type { AssistantContent, SessionEntry, SessionHeader, ThinkingLevel, ToolCall } from '@strata/session';
import { SessionBuilder } from '@strata/testing';
import { SeededRandom, TextSource } from './synthetic-text';

export interface GeneratedSessionOptions {
  /** Entries wanted; generation stops at the first turn boundary at or after this count. */
  readonly entryCount: number;
  readonly seed?: number;
  /** Estimated context tokens (chars/4) above which a compaction is appended. Default 150,000. */
  readonly compactionThresholdTokens?: number;
  /** Tokens of recent turns a compaction keeps. Default 20,000. */
  readonly keepRecentTokens?: number;
  /** Roughly one branch (with a branch summary) per this many entries. Default 5,000. */
  readonly entriesPerBranch?: number;
  /** The session id of the header; `bench-<entryCount>` by default. */
  readonly sessionId?: string;
}

export interface GeneratedSession {
  readonly header: SessionHeader;
  readonly entries: readonly SessionEntry[];
  readonly compactionCount: number;
  readonly branchCount: number;
}

/** A turn on the current path: where it starts (a valid cut point) and its estimated tokens. */
interface TurnRecord {
  readonly startId: string;
  readonly endId: string;
  readonly tokens: number;
}

const toolNames = ['read', 'bash', 'edit', 'write', 'grep'] as const;
const filePaths = [
  'src/session/session-manager.ts', 'src/session/compaction.ts', 'src/store/sqlite-store.ts', 'src/cli/main.ts',
  'test/session.spec.ts', 'test/compaction.spec.ts', 'package.json', 'README.md', 'docs/design.md',
] as const; // prettier-ignore
const models = ['claude-sonnet-4-5', 'claude-opus-4-5', 'claude-haiku-4-5'] as const;
const thinkingLevels: readonly ThinkingLevel[] = ['off', 'low', 'medium', 'high'];

function assistantCharacters(content: AssistantContent): number {
  let characters = 0;
  for (const block of content) {
    if (block.type === 'text') characters += block.text.length;
    else if (block.type === 'thinking') characters += block.thinking.length;
    else characters += block.name.length + JSON.stringify(block.arguments).length;
  }
  return characters;
}

function charsToTokens(characters: number): number {
  return Math.ceil(characters / 4);
}

export function generateSession(options: GeneratedSessionOptions): GeneratedSession {
  const random = new SeededRandom(options.seed ?? 20_260_101);
  const text = new TextSource(random);
  const threshold = options.compactionThresholdTokens ?? 150_000;
  const keepRecentTokens = options.keepRecentTokens ?? 20_000;
  const entriesPerBranch = options.entriesPerBranch ?? 5_000;
  const builder = new SessionBuilder({
    sessionId: options.sessionId ?? `bench-${options.entryCount}`,
    idPrefix: 'g',
  });
  let turns: TurnRecord[] = [];
  /** Turns appended since the latest compaction: a branch never reaches back past it. */
  let turnsSinceCompaction = 0;
  let toolCallCount = 0;
  let summaryTokens = 0;
  let compactionCount = 0;
  let branchCount = 0;
  let nextBranchAt = entriesPerBranch;
  const contextTokens = (): number => summaryTokens + turns.reduce((total, turn) => total + turn.tokens, 0);

  const usage = (outputCharacters: number) => ({
    input: random.integer(50, 3000),
    cacheRead: Math.round(contextTokens() * 1.08) + 6000,
    output: charsToTokens(outputCharacters),
  });

  const toolArguments = (name: (typeof toolNames)[number]): Record<string, unknown> => {
    const path = random.pick(filePaths);
    switch (name) {
      case 'read':
        return { path };
      case 'bash':
        return { command: `npm test -- ${path}`, timeout: 120 };
      case 'edit':
        return {
          path,
          oldText: text.codeOf(random.integer(40, 400)),
          newText: text.codeOf(random.integer(40, 400)),
        };
      case 'write':
        return { path, content: text.codeOf(random.integer(200, 3000)) };
      case 'grep':
        return { pattern: random.pick(['buildSessionContext', 'TODO', 'firstKept']), path: 'src' };
    }
  };

  const userTurn = (): void => {
    const prompt = text.proseOf(random.integer(40, 700));
    builder.user(prompt);
    const startId = builder.lastId;
    let characters = prompt.length;
    const rounds = random.integer(0, 7);
    for (let round = 0; round < rounds; round += 1) {
      const calls = Array.from({ length: random.chance(0.8) ? 1 : random.integer(2, 3) }, (): ToolCall => {
        toolCallCount += 1;
        const name = random.pick(toolNames);
        return { type: 'toolCall', id: `call_${toolCallCount}`, name, arguments: toolArguments(name) };
      });
      const content: AssistantContent = [];
      if (random.chance(0.5))
        content.push({ type: 'thinking', thinking: text.proseOf(random.integer(100, 900)) });
      if (random.chance(0.3)) content.push({ type: 'text', text: text.proseOf(random.integer(40, 300)) });
      content.push(...calls);
      const roundCharacters = assistantCharacters(content);
      builder.assistantContent(content, { usage: usage(roundCharacters) });
      characters += roundCharacters;
      for (const call of calls) {
        const output =
          call.name === 'edit' || call.name === 'write'
            ? `Successfully wrote ${random.integer(10, 4000)} bytes to ${String(call.arguments.path)}.`
            : text.codeOf(text.outputLength());
        builder.toolResult(call.name, output, { toolCallId: call.id, isError: random.chance(0.04) });
        characters += output.length;
      }
    }
    const thinking = random.chance(0.6) ? text.proseOf(random.integer(100, 1500)) : undefined;
    const answer = text.proseOf(random.integer(60, 2000));
    if (thinking !== undefined)
      builder.assistantThinking(thinking, answer, { usage: usage(thinking.length + answer.length) });
    else builder.assistant(answer, { usage: usage(answer.length) });
    characters += answer.length + (thinking?.length ?? 0);
    turns.push({ startId, endId: builder.lastId, tokens: charsToTokens(characters) });
    turnsSinceCompaction += 1;
  };

  const bashRun = (): void => {
    const output = text.codeOf(text.outputLength());
    builder.bashExecution(`git diff --stat ${random.pick(filePaths)}`, output, {
      exitCode: random.chance(0.9) ? 0 : 1,
    });
    turns.push({ startId: builder.lastId, endId: builder.lastId, tokens: charsToTokens(output.length + 40) });
    turnsSinceCompaction += 1;
  };

  const compact = (): void => {
    let firstKept = turns.length - 1;
    let kept = (turns[firstKept] as TurnRecord).tokens;
    while (firstKept > 0 && kept + (turns[firstKept - 1] as TurnRecord).tokens <= keepRecentTokens) {
      firstKept -= 1;
      kept += (turns[firstKept] as TurnRecord).tokens;
    }
    const summary = text.proseOf(random.integer(2000, 8000));
    const readFiles = filePaths.filter(() => random.chance(0.4));
    const modifiedFiles = filePaths.filter(() => random.chance(0.2));
    builder.compaction({
      firstKeptEntryId: (turns[firstKept] as TurnRecord).startId,
      tokensBefore: contextTokens(),
      summary,
      details: { readFiles, modifiedFiles },
    });
    turns = turns.slice(firstKept);
    summaryTokens = charsToTokens(summary.length);
    turnsSinceCompaction = 0;
    compactionCount += 1;
  };

  const branch = (): void => {
    const target = turns[turns.length - 4] as TurnRecord;
    const abandonedLeaf = builder.lastId;
    turns = turns.slice(0, turns.length - 3);
    builder.branchFrom(target.endId);
    const summary = text.proseOf(random.integer(300, 1500));
    builder.branchSummary(abandonedLeaf, summary, {
      details: { readFiles: [random.pick(filePaths)], modifiedFiles: [] },
    });
    turns.push({ startId: builder.lastId, endId: builder.lastId, tokens: charsToTokens(summary.length) });
    turnsSinceCompaction -= 2;
    branchCount += 1;
  };

  while (builder.entries.length < options.entryCount) {
    const draw = random.next();
    if (draw < 0.86) userTurn();
    else if (draw < 0.91) bashRun();
    else if (draw < 0.94) builder.modelChange(`anthropic/${random.pick(models)}`);
    else if (draw < 0.96) builder.thinkingLevelChange(random.pick(thinkingLevels));
    else if (draw < 0.98)
      builder.label(builder.lastId, random.chance(0.8) ? `checkpoint-${builder.entries.length}` : undefined);
    else
      builder.custom('bench-extension', {
        counter: builder.entries.length,
        note: text.proseOf(random.integer(20, 200)),
      });
    if (builder.entries.length >= nextBranchAt && turnsSinceCompaction >= 5) {
      branch();
      nextBranchAt += entriesPerBranch;
    }
    if (contextTokens() > threshold) compact();
  }
  return { header: builder.header, entries: builder.entries, compactionCount, branchCount };
}
