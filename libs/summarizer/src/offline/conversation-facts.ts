// Extracts the offline summariser's facts from a transcript, without interpreting it: user
// requests, tool actions and their outcomes, exact file paths, the lines of tool output that
// report a failure (tool-failures.ts) and the failures no later run settled (tool-actions.ts),
// sentences that state constraints, decisions or next steps, and a question left pending.
import { filePathsIn } from './file-paths';
import type { TranscriptBlock } from './summary-prompt';
import {
  RESPOND_STEP,
  type SummaryFacts,
  clip,
  firstLine,
  sortedPaths,
  union,
  unionLatest,
} from './summary-facts';
import {
  type ActionIdentity,
  actionIdentity,
  actionLabel,
  callPath,
  contentKeys,
  isPathKey,
  modifyTools,
  settles,
  shellCommandOf,
} from './tool-actions';
import { type TranscriptToolCall, parseToolCalls } from './tool-calls';
import { failureLines } from './tool-failures';

const constraintSentence =
  /\b(must|never|always|don't|do not|should|shouldn't|prefer|avoid|make sure|without|only|keep)\b/i;
const decisionSentence =
  /\b(decided|decide|chose|choose|going with|instead of|rather than|because|I'll use|I will use|approach)\b/i;
const nextStepSentence = /\b(next|then|todo|remaining|still need|need to|I will|I'll|plan to)\b/i;

const SENTENCE_LIMIT = 240;
const ERROR_LINE_LIMIT = 300;
const DECISIONS_KEPT = 15;
const NEXT_STEPS_KEPT = 5;

/** Sentences of prose: fenced code is left out, and a single line break does not end a sentence. */
export function sentences(text: string): string[] {
  return text
    .replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1\s*$/gm, '')
    .replace(/([^\n])\n(?!\n|\s*(?:[-*+]|\d+[.)])\s)/g, '$1 ')
    .split(/\n+|(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 3);
}

function matching(text: string, pattern: RegExp): string[] {
  return sentences(text)
    .filter((sentence) => pattern.test(sentence))
    .map((sentence) => clip(sentence, SENTENCE_LIMIT));
}

function mentionedPaths(call: TranscriptToolCall): string[] {
  return Object.entries(call.arguments).flatMap(([key, value]) =>
    typeof value === 'string' && !contentKeys.has(key) && !isPathKey(key) ? filePathsIn(value) : [],
  );
}

function errorLinesOf(call: TranscriptToolCall | undefined, result: string): string[] {
  const command = call === undefined ? undefined : shellCommandOf(call);
  return failureLines(call?.name ?? '', command, result).map((line) => clip(line, ERROR_LINE_LIMIT));
}

/** The last paragraph of `text` that asks something, word for word. */
function lastQuestion(text: string): string | undefined {
  return text
    .split(/\n\s*\n/)
    .filter((paragraph) => paragraph.includes('?'))
    .at(-1)
    ?.trim();
}

interface ActionOutcome {
  readonly label: string;
  readonly errors: readonly string[];
  readonly finished: boolean;
}

interface CallOutcome extends ActionOutcome {
  readonly call: TranscriptToolCall;
}

/**
 * Pairs each tool call with the tool results that follow its block, in order. Results no call
 * claims (a transcript that starts mid-turn) are returned on their own.
 */
function actionOutcomes(blocks: readonly TranscriptBlock[]): {
  outcomes: CallOutcome[];
  unpairedResults: string[];
} {
  const outcomes: CallOutcome[] = [];
  const paired = new Set<number>();
  blocks.forEach((block, index) => {
    if (block.kind !== 'tool_calls') return;
    const calls = parseToolCalls(block.text);
    const results: string[] = [];
    let next = index + 1;
    while (blocks[next]?.kind === 'tool_result' && results.length < calls.length) {
      paired.add(next);
      results.push(blocks[next++]?.text ?? '');
    }
    const transcriptGoesOn = next < blocks.length;
    calls.forEach((call, callIndex) => {
      const result = results[callIndex];
      outcomes.push({
        call,
        label: actionLabel(call),
        errors: result === undefined ? [] : errorLinesOf(call, result),
        finished: result !== undefined || transcriptGoesOn,
      });
    });
  });
  const unpairedResults = blocks
    .filter((block, index) => block.kind === 'tool_result' && !paired.has(index))
    .map((block) => block.text);
  return { outcomes, unpairedResults };
}

/**
 * The failed calls no later call settles, oldest first: a failure stays only until the same
 * action runs again, or, for a build, check or test run, until any such run succeeds.
 */
function unsettledFailures(outcomes: readonly CallOutcome[]): CallOutcome[] {
  let failures: Array<{ outcome: CallOutcome; identity: ActionIdentity }> = [];
  for (const outcome of outcomes) {
    if (!outcome.finished) continue;
    const identity = actionIdentity(outcome.label);
    const succeeded = outcome.errors.length === 0;
    failures = failures.filter((failure) => !settles(identity, succeeded, failure.identity));
    if (!succeeded) failures.push({ outcome, identity });
  }
  return failures.map((failure) => failure.outcome);
}

export function conversationFacts(blocks: readonly TranscriptBlock[]): SummaryFacts {
  const userTexts = blocks.filter((block) => block.kind === 'user').map((block) => block.text);
  const assistantTexts = blocks.filter((block) => block.kind === 'assistant').map((block) => block.text);
  const { outcomes, unpairedResults } = actionOutcomes(blocks);

  const latestOutcome = new Map<string, ActionOutcome>();
  for (const outcome of outcomes) {
    latestOutcome.delete(outcome.label);
    latestOutcome.set(outcome.label, outcome);
  }
  const settled = [...latestOutcome.values()];
  const done = settled
    .filter((outcome) => outcome.finished && outcome.errors.length === 0)
    .map((o) => o.label);
  const blocked = unsettledFailures(outcomes).map(
    (outcome) => `${outcome.label} — ${outcome.errors[0] ?? ''}`,
  );
  const inProgress = settled.filter((outcome) => !outcome.finished).map((outcome) => outcome.label);

  const filesRead = new Set<string>();
  const filesModified = new Set<string>();
  for (const { call } of outcomes) {
    const path = callPath(call);
    if (path === undefined) continue;
    if (modifyTools.has(call.name)) filesModified.add(path);
    else filesRead.add(path);
  }
  for (const path of filesModified) filesRead.delete(path);

  const errors = unionLatest(
    ...outcomes.map((outcome) => outcome.errors),
    ...unpairedResults.map((result) => errorLinesOf(undefined, result)),
  );
  const listed = new Set([...filesRead, ...filesModified]);
  const filesMentioned = sortedPaths(
    [
      ...userTexts.flatMap(filePathsIn),
      ...assistantTexts.flatMap(filePathsIn),
      ...outcomes.flatMap(({ call }) => mentionedPaths(call)),
      ...errors.flatMap(filePathsIn),
    ].filter((path) => !listed.has(path)),
  );

  const last = blocks.at(-1);
  const pendingQuestion = last?.kind === 'assistant' ? lastQuestion(last.text) : undefined;
  const nextSteps = union(
    last?.kind === 'user' ? [RESPOND_STEP] : [],
    matching(assistantTexts.at(-1) ?? '', nextStepSentence).slice(0, NEXT_STEPS_KEPT),
  );

  return {
    earlierRequests: userTexts.slice(0, -1).map((text) => firstLine(text, 200)),
    latestRequest: userTexts.at(-1),
    constraints: union(userTexts.flatMap((text) => matching(text, constraintSentence))),
    done,
    inProgress,
    blocked,
    decisions: union(assistantTexts.flatMap((text) => matching(text, decisionSentence))).slice(
      -DECISIONS_KEPT,
    ),
    nextSteps,
    filesRead: sortedPaths(filesRead),
    filesModified: sortedPaths(filesModified),
    filesMentioned,
    errors,
    pendingQuestion,
    notes: [],
    requestedFocus: undefined,
    focusMatches: [],
  };
}
