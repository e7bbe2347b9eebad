// fast-check arbitraries for realistic session trees: plans of steps (session-steps.ts) replayed
// through the SessionBuilder, so ids (`e0001`…) and timestamps follow from position alone.
//
// Options (all optional):
// - maxEntries (60): no session grows beyond this many entries; a step that would not fit is dropped.
// - maxSteps (maxEntries / 3, at least 1): the length of the plan before replay.
// - branching (true): now and then the leaf moves back to an earlier entry (to the parent of a
//   user message, as the reference's tree navigation does), sometimes with a branch_summary. The
//   new leaf is never inside a tool-call round (it climbs out to the entry before the round), so
//   every tool call on a generated path has its results.
// - compactions (false): add compaction entries whose firstKeptEntryId lies on the current path
//   after the previous compaction and is a valid cut point (a user, assistant or bashExecution
//   message, a custom_message or a branch_summary; never a toolResult).
// - images (true): sometimes an image block in a user prompt or a tool result.
// - unicodeText (true): besides word salad, some texts are arbitrary UTF-16 strings.
// - modelChangeShapes ('oh-my-pi'): 'both' writes some model changes as pi does (`provider`,
//   `modelId`) instead of oh-my-pi's `model` string.
// - extensionEntries (false): some compactions and branch summaries come from an extension
//   (`fromHook: true` as pi writes it, or `fromExtension: true`), with the extension's own JSON
//   as details.
// - keptRegionCuts (false): a chained compaction may keep from the previous compaction's kept
//   region, as pi 0.73.1 prepares it (its window starts at the previous first kept entry).
// - stepWeights (session-steps.ts `defaultStepWeights`): how often each kind of step is drawn.
// - sessionId ('generated-session'), baseTime (the builder's default): header id and time base.
import * as fc from 'fast-check';
import type {
  AssistantContent,
  ImageContent,
  SessionEntry,
  SessionHeader,
  StopReason,
  UserContent,
} from '@strata/session';
import { SessionBuilder } from './session-builder';
import {
  firstTurnArbitrary,
  sessionStepArbitrary,
  type AssistantPlan,
  type ExtensionPlan,
  type SessionStep,
  type StepWeights,
} from './session-steps';

export interface SessionArbitraryOptions {
  readonly maxEntries?: number;
  readonly maxSteps?: number;
  readonly branching?: boolean;
  readonly compactions?: boolean;
  readonly modelChangeShapes?: 'oh-my-pi' | 'both';
  readonly extensionEntries?: boolean;
  readonly keptRegionCuts?: boolean;
  readonly stepWeights?: Partial<StepWeights>;
  readonly images?: boolean;
  readonly unicodeText?: boolean;
  readonly sessionId?: string;
  readonly baseTime?: string;
}

export interface GeneratedSession {
  readonly header: SessionHeader;
  /** Entries in append order. */
  readonly entries: readonly SessionEntry[];
  /** The leaf after the last step (a branch step may leave it away from the last entry). */
  readonly leafId: string | null;
}

const sampleImage: ImageContent = { type: 'image', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==', mimeType: 'image/png' }; // prettier-ignore

function pick<T>(items: readonly T[], position: number): T | undefined {
  return items[Math.min(items.length - 1, Math.floor(position * items.length))];
}

function stepSize(step: SessionStep): number {
  switch (step.kind) {
    case 'userTurn':
      return 2 + step.rounds.reduce((total, round) => total + 1 + round.calls.length, 0);
    case 'branch':
      return step.summary === undefined ? 0 : 1;
    case 'bash':
    case 'customMessage':
    case 'modelChange':
    case 'thinkingLevelChange':
    case 'label':
    case 'custom':
    case 'compaction':
      return 1;
    default: {
      const unreachable: never = step;
      return unreachable;
    }
  }
}

/** Whether a compaction may keep the session from this entry on. */
export function isGeneratedCutPoint(entry: SessionEntry): boolean {
  if (entry.type === 'custom_message' || entry.type === 'branch_summary') return true;
  if (entry.type !== 'message') return false;
  const role = entry.message.role;
  return role === 'user' || role === 'assistant' || role === 'bashExecution';
}

/** Whether an entry belongs to a tool-call round (an assistant message with calls, or a result). */
function isInToolRound(entry: SessionEntry): boolean {
  if (entry.type !== 'message') return false;
  const message = entry.message;
  if (message.role === 'toolResult') return true;
  return message.role === 'assistant' && message.content.some((block) => block.type === 'toolCall');
}

/**
 * The nearest ancestor-or-self of `entry` outside any tool-call round (null when there is none).
 * A leaf inside a round would leave some of its calls unanswered, which real navigation never
 * does and which the context builder rightly repairs; generated sessions stay undamaged.
 */
function outsideToolRound(entries: readonly SessionEntry[], entry: SessionEntry): SessionEntry | null {
  const byId = new Map(entries.map((candidate) => [candidate.id, candidate]));
  let current: SessionEntry | undefined = entry;
  while (current && isInToolRound(current)) {
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return current ?? null;
}

function pathToLeaf(entries: readonly SessionEntry[], leafId: string | null): SessionEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const path: SessionEntry[] = [];
  for (let current = leafId === null ? undefined : byId.get(leafId); current;) {
    path.unshift(current);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return path;
}

function assistantBlocks(plan: AssistantPlan, fallbackText: string | undefined): AssistantContent {
  const content: AssistantContent = [];
  if (plan.thinking !== undefined) content.push({ type: 'thinking', thinking: plan.thinking });
  const text = plan.text ?? fallbackText;
  if (text !== undefined) content.push({ type: 'text', text });
  return content;
}

function applyUserTurn(builder: SessionBuilder, step: Extract<SessionStep, { kind: 'userTurn' }>): void {
  const prompt: UserContent =
    step.promptAsBlocks || step.promptImage
      ? [{ type: 'text', text: step.prompt }, ...(step.promptImage ? [sampleImage] : [])]
      : step.prompt;
  builder.user(prompt);
  for (const round of step.rounds) {
    const callIds = round.calls.map((_call, index) => `call_${builder.nextId}_${index + 1}`);
    const content = assistantBlocks(round.assistant, undefined);
    round.calls.forEach((call, index) =>
      content.push({ type: 'toolCall', id: callIds[index]!, name: call.name, arguments: call.arguments }),
    );
    builder.assistantContent(content, { usage: round.assistant.usage, stopReason: 'toolUse' });
    round.calls.forEach((call, index) =>
      builder.toolResult(call.name, call.resultText, {
        toolCallId: callIds[index]!,
        isError: call.isError,
        ...(call.withImage ? { image: sampleImage } : {}),
      }),
    );
  }
  const stopReason: StopReason = step.answerStopReason;
  const failed = stopReason === 'error' || stopReason === 'aborted';
  builder.assistantContent(assistantBlocks(step.answer, 'Done.'), {
    usage: step.answer.usage,
    stopReason,
    ...(failed ? { errorMessage: stopReason === 'error' ? 'Overloaded' : 'Request was aborted' } : {}),
  });
}

/** The extension fields of a compaction or branch summary, or `{}` for the agent's own. */
function extensionFields(plan: ExtensionPlan | undefined): {
  details?: unknown;
  fromHook?: true;
  fromExtension?: true;
} {
  if (plan === undefined) return {};
  return plan.flag === 'fromHook'
    ? { details: plan.details, fromHook: true }
    : { details: plan.details, fromExtension: true };
}

/** Path index of the first entry a compaction at the end of `path` may keep from. */
function firstKeepableIndex(path: readonly SessionEntry[], keptRegionCuts: boolean): number {
  const lastCompaction = path.findLastIndex((entry) => entry.type === 'compaction');
  if (!keptRegionCuts || lastCompaction < 0) return lastCompaction + 1;
  const compaction = path[lastCompaction] as Extract<SessionEntry, { type: 'compaction' }>;
  const kept = path.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
  return kept >= 0 && kept < lastCompaction ? kept : lastCompaction + 1;
}

function applyStep(builder: SessionBuilder, step: SessionStep, keptRegionCuts: boolean): void {
  const entries = builder.entries;
  switch (step.kind) {
    case 'userTurn':
      return applyUserTurn(builder, step);
    case 'bash':
      builder.bashExecution(step.command, step.output, {
        exitCode: step.exitCode,
        ...(step.excludeFromContext ? { excludeFromContext: true } : {}),
      });
      return;
    case 'customMessage':
      if (step.asEntry) builder.customMessage(step.customType, step.content, { display: step.display });
      else builder.customRoleMessage(step.customType, step.content, { display: step.display });
      return;
    case 'modelChange':
      if (step.shape === 'pi') {
        const slash = step.model.indexOf('/');
        builder.piModelChange(step.model.slice(0, slash), step.model.slice(slash + 1));
      } else {
        builder.modelChange(step.model, step.role);
      }
      return;
    case 'thinkingLevelChange':
      builder.thinkingLevelChange(step.thinkingLevel);
      return;
    case 'custom':
      builder.custom(step.customType, step.data);
      return;
    case 'label': {
      const target = pick(entries, step.target);
      if (target) builder.label(target.id, step.label);
      return;
    }
    case 'branch': {
      const picked = pick(entries, step.target);
      if (!picked) return;
      const target = outsideToolRound(entries, picked);
      if (target === null) return;
      const isUserMessage = target.type === 'message' && target.message.role === 'user';
      const newLeafId = isUserMessage ? target.parentId : target.id;
      builder.branchFrom(newLeafId);
      if (step.summary !== undefined) {
        builder.branchSummary(
          newLeafId ?? 'root',
          step.summary,
          step.extension !== undefined
            ? extensionFields(step.extension)
            : { details: { readFiles: [], modifiedFiles: [] } },
        );
      }
      return;
    }
    case 'compaction': {
      const path = pathToLeaf(entries, builder.leafId);
      if (path.length === 0 || path[path.length - 1]?.type === 'compaction') return;
      const keepable = path.slice(firstKeepableIndex(path, keptRegionCuts));
      const cut = pick(keepable.filter(isGeneratedCutPoint), step.cut);
      if (!cut) return;
      builder.compaction({
        firstKeptEntryId: cut.id,
        tokensBefore: step.tokensBefore,
        summary: `## Goal\nKeep working from ${cut.id}.`,
        ...(step.shortSummary !== undefined ? { shortSummary: step.shortSummary } : {}),
        ...(step.extension !== undefined
          ? extensionFields(step.extension)
          : {
              ...(step.withDetails
                ? { details: { readFiles: ['src/main.ts'], modifiedFiles: ['src/session.ts'] } }
                : {}),
              ...(step.fromExtension !== undefined ? { fromExtension: step.fromExtension } : {}),
            }),
      });
      return;
    }
    default: {
      const unreachable: never = step;
      return unreachable;
    }
  }
}

/** Replays a plan into a session; steps that would push it past `maxEntries` are dropped. */
export function buildSessionFromSteps(
  steps: readonly SessionStep[],
  options: Pick<SessionArbitraryOptions, 'maxEntries' | 'sessionId' | 'baseTime' | 'keptRegionCuts'> = {},
): GeneratedSession {
  const maxEntries = options.maxEntries ?? 60;
  const builder = new SessionBuilder({
    sessionId: options.sessionId ?? 'generated-session',
    ...(options.baseTime !== undefined ? { baseTime: options.baseTime } : {}),
  });
  for (const step of steps) {
    if (builder.entries.length + stepSize(step) > maxEntries) continue;
    applyStep(builder, step, options.keptRegionCuts ?? false);
  }
  return { header: builder.header, entries: [...builder.entries], leafId: builder.leafId };
}

/** A generated session: header, entries in append order, and the final leaf. */
export function generatedSessionArbitrary(
  options: SessionArbitraryOptions = {},
): fc.Arbitrary<GeneratedSession> {
  const maxEntries = options.maxEntries ?? 60;
  const stepOptions = {
    images: options.images ?? true,
    unicodeText: options.unicodeText ?? true,
    branching: options.branching ?? true,
    compactions: options.compactions ?? false,
    modelChangeShapes: options.modelChangeShapes ?? 'oh-my-pi',
    extensionEntries: options.extensionEntries ?? false,
    ...(options.stepWeights !== undefined ? { stepWeights: options.stepWeights } : {}),
  };
  const maxSteps = options.maxSteps ?? Math.max(1, Math.ceil(maxEntries / 3));
  return fc
    .tuple(
      firstTurnArbitrary(stepOptions),
      fc.array(sessionStepArbitrary(stepOptions), { maxLength: maxSteps }),
    )
    .map(([first, rest]) => buildSessionFromSteps([first, ...rest], { ...options, maxEntries }));
}

/** Just the entries of a generated session, in append order. */
export function sessionEntriesArbitrary(options: SessionArbitraryOptions = {}): fc.Arbitrary<SessionEntry[]> {
  return generatedSessionArbitrary(options).map((session) => [...session.entries]);
}
