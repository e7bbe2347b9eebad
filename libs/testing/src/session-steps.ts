// The plan a generated session follows: a list of steps (a user turn with its tool rounds, a
// bash run, a custom message, a metadata entry, a branch, a compaction) drawn by fast-check.
// Positions are fractions in [0, 1) so the plan stays valid whatever the session looks like
// when the step is replayed; `session-arbitraries.ts` turns the plan into entries.
import * as fc from 'fast-check';
import type { StopReason, ThinkingLevel, Usage } from '@strata/session';
import { thinkingLevels } from '@strata/session';

export interface ToolCallPlan {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly resultText: string;
  readonly isError: boolean;
  readonly withImage: boolean;
}

export interface AssistantPlan {
  readonly thinking: string | undefined;
  readonly text: string | undefined;
  readonly usage: Usage;
}

export type SessionStep =
  | {
      readonly kind: 'userTurn';
      readonly prompt: string;
      readonly promptAsBlocks: boolean;
      readonly promptImage: boolean;
      readonly rounds: readonly {
        readonly assistant: AssistantPlan;
        readonly calls: readonly ToolCallPlan[];
      }[];
      readonly answer: AssistantPlan;
      readonly answerStopReason: StopReason;
    }
  | {
      readonly kind: 'bash';
      readonly command: string;
      readonly output: string;
      readonly exitCode: number;
      readonly excludeFromContext: boolean;
    }
  | {
      readonly kind: 'customMessage';
      readonly asEntry: boolean;
      readonly customType: string;
      readonly content: string;
      readonly display: boolean;
    }
  | {
      readonly kind: 'modelChange';
      readonly model: string;
      readonly role: string | undefined;
      /** `pi`: written as pi writes it (`provider`, `modelId`, no role); else oh-my-pi's `model`. */
      readonly shape?: 'pi' | 'oh-my-pi';
    }
  | { readonly kind: 'thinkingLevelChange'; readonly thinkingLevel: ThinkingLevel }
  | { readonly kind: 'label'; readonly target: number; readonly label: string | undefined }
  | { readonly kind: 'custom'; readonly customType: string; readonly data: unknown }
  | {
      readonly kind: 'branch';
      readonly target: number;
      readonly summary: string | undefined;
      readonly extension?: ExtensionPlan;
    }
  | {
      readonly kind: 'compaction';
      readonly cut: number;
      readonly tokensBefore: number;
      readonly shortSummary: string | undefined;
      readonly withDetails: boolean;
      readonly fromExtension: boolean | undefined;
      readonly extension?: ExtensionPlan;
    };

/** A compaction or branch summary made by an extension: its flag and its own JSON details. */
export interface ExtensionPlan {
  /** pi writes `fromHook`, Strata's hooks `fromExtension`. */
  readonly flag: 'fromHook' | 'fromExtension';
  readonly details: unknown;
}

export interface StepArbitraryOptions {
  readonly images: boolean;
  readonly unicodeText: boolean;
  readonly branching: boolean;
  readonly compactions: boolean;
  /** `both`: model changes in pi's shape too, not only oh-my-pi's. */
  readonly modelChangeShapes: 'oh-my-pi' | 'both';
  /** Some compactions and branch summaries come from an extension, with extension details. */
  readonly extensionEntries: boolean;
  /** Relative weights of the kinds of steps (defaults in `defaultStepWeights`). */
  readonly stepWeights?: Partial<StepWeights>;
}

export interface StepWeights {
  readonly userTurn: number;
  readonly bash: number;
  readonly customMessage: number;
  /** Model and thinking-level changes, labels, custom entries. */
  readonly metadata: number;
  readonly branch: number;
  readonly compaction: number;
}

/** User turns dominate; structure changes are occasional. */
export const defaultStepWeights: StepWeights = {
  userTurn: 10,
  bash: 1,
  customMessage: 1,
  metadata: 3,
  branch: 2,
  compaction: 2,
};

const words = [
  'fix', 'the', 'test', 'read', 'file', 'parser', 'session', 'branch', 'tree', 'token', 'budget', 'summary',
  'compaction', 'error', 'refactor', 'module', 'export', 'type', 'check', 'again', 'why', 'does', 'it', 'fail',
] as const; // prettier-ignore
const paths = ['src/main.ts', 'src/session.ts', 'test/session.spec.ts', 'README.md', 'package.json'] as const;
const models = ['anthropic/claude-sonnet-4-5', 'anthropic/claude-opus-4-5', 'openai/gpt-5.1-codex'] as const;

const fraction = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

function textArbitrary(options: StepArbitraryOptions, maxWords = 12): fc.Arbitrary<string> {
  const sentence = fc
    .array(fc.constantFrom(...words), { minLength: 1, maxLength: maxWords })
    .map((picked) => picked.join(' '));
  if (!options.unicodeText) return sentence;
  return fc.oneof(
    { weight: 4, arbitrary: sentence },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  );
}

const usageArbitrary: fc.Arbitrary<Usage> = fc
  .record({
    input: fc.integer({ min: 0, max: 200_000 }),
    output: fc.integer({ min: 0, max: 8_000 }),
    cacheRead: fc.integer({ min: 0, max: 150_000 }),
    cacheWrite: fc.integer({ min: 0, max: 20_000 }),
  })
  .map((tokens) => ({
    ...tokens,
    totalTokens: tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  }));

function toolCallArbitrary(options: StepArbitraryOptions): fc.Arbitrary<ToolCallPlan> {
  const path = fc.constantFrom(...paths);
  const text = textArbitrary(options);
  const call = fc.oneof(
    fc.record({ name: fc.constant('read'), arguments: fc.record({ path }) }),
    fc.record({ name: fc.constant('edit'), arguments: fc.record({ path, oldText: text, newText: text }) }),
    fc.record({ name: fc.constant('write'), arguments: fc.record({ path, content: text }) }),
    fc.record({ name: fc.constant('bash'), arguments: fc.record({ command: text }) }),
  );
  return fc
    .record({
      call,
      resultText: textArbitrary(options, 40),
      errorRoll: fc.integer({ min: 0, max: 7 }),
      imageRoll: fc.integer({ min: 0, max: 9 }),
    })
    .map(({ call: picked, resultText, errorRoll, imageRoll }) => ({
      name: picked.name,
      arguments: picked.arguments,
      resultText,
      isError: errorRoll === 0,
      withImage: options.images && imageRoll === 0,
    }));
}

function assistantArbitrary(options: StepArbitraryOptions): fc.Arbitrary<AssistantPlan> {
  return fc.record({
    thinking: fc.option(textArbitrary(options, 20), { nil: undefined, freq: 2 }),
    text: fc.option(textArbitrary(options, 30), { nil: undefined, freq: 4 }),
    usage: usageArbitrary,
  });
}

function userTurnArbitrary(options: StepArbitraryOptions): fc.Arbitrary<SessionStep> {
  return fc.record({
    kind: fc.constant('userTurn' as const),
    prompt: textArbitrary(options, 20),
    promptAsBlocks: fc.boolean(),
    promptImage: options.images
      ? fc.integer({ min: 0, max: 9 }).map((roll) => roll === 0)
      : fc.constant(false),
    rounds: fc.array(
      fc.record({
        assistant: assistantArbitrary(options),
        calls: fc.array(toolCallArbitrary(options), { minLength: 1, maxLength: 3 }),
      }),
      { maxLength: 3 },
    ),
    answer: assistantArbitrary(options),
    answerStopReason: fc.constantFrom<StopReason>(
      'stop',
      'stop',
      'stop',
      'stop',
      'length',
      'error',
      'aborted',
    ),
  });
}

function modelChangeArbitrary(options: StepArbitraryOptions): fc.Arbitrary<SessionStep> {
  const ohMyPi = fc.record({
    kind: fc.constant('modelChange' as const),
    model: fc.constantFrom(...models),
    role: fc.option(fc.constantFrom('default', 'smol', 'slow', 'plan'), { nil: undefined }),
  });
  if (options.modelChangeShapes === 'oh-my-pi') return ohMyPi;
  const pi = fc.record({
    kind: fc.constant('modelChange' as const),
    model: fc.constantFrom(...models),
    role: fc.constant(undefined),
    shape: fc.constant('pi' as const),
  });
  return fc.oneof(ohMyPi, pi);
}

/** Undefined most of the time; with extension entries on, sometimes an extension's plan. */
function extensionArbitrary(options: StepArbitraryOptions): fc.Arbitrary<ExtensionPlan | undefined> {
  if (!options.extensionEntries) return fc.constant(undefined);
  const plan = fc.record({
    flag: fc.constantFrom('fromHook' as const, 'fromExtension' as const),
    details: fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.record({ readFiles: fc.constant('not a list'), artifacts: fc.array(fc.string(), { maxLength: 3 }) }),
    ),
  });
  return fc.option(plan, { nil: undefined, freq: 2 });
}

function metadataArbitrary(options: StepArbitraryOptions): fc.Arbitrary<SessionStep> {
  return fc.oneof(
    modelChangeArbitrary(options),
    fc.record({
      kind: fc.constant('thinkingLevelChange' as const),
      thinkingLevel: fc.constantFrom(...thinkingLevels),
    }),
    fc.record({
      kind: fc.constant('label' as const),
      target: fraction,
      label: fc.option(textArbitrary(options, 3), { nil: undefined, freq: 4 }),
    }),
    fc.record({
      kind: fc.constant('custom' as const),
      customType: fc.constantFrom('todo-state', 'plan-mode'),
      data: fc.jsonValue({ maxDepth: 2 }),
    }),
  );
}

/** One step of a session plan; user turns dominate, structure changes are occasional. */
export function sessionStepArbitrary(options: StepArbitraryOptions): fc.Arbitrary<SessionStep> {
  const text = textArbitrary(options);
  const weights: StepWeights = { ...defaultStepWeights, ...options.stepWeights };
  const steps: fc.WeightedArbitrary<SessionStep>[] = [
    { weight: weights.userTurn, arbitrary: userTurnArbitrary(options) },
    {
      weight: weights.bash,
      arbitrary: fc.record({
        kind: fc.constant('bash' as const),
        command: text,
        output: textArbitrary(options, 30),
        exitCode: fc.constantFrom(0, 0, 1, 127),
        excludeFromContext: fc.boolean(),
      }),
    },
    {
      weight: weights.customMessage,
      arbitrary: fc.record({
        kind: fc.constant('customMessage' as const),
        asEntry: fc.boolean(),
        customType: fc.constantFrom('reminder', 'file-context'),
        content: text,
        display: fc.boolean(),
      }),
    },
    { weight: weights.metadata, arbitrary: metadataArbitrary(options) },
  ];
  if (options.branching) {
    steps.push({
      weight: weights.branch,
      arbitrary: fc.record({
        kind: fc.constant('branch' as const),
        target: fraction,
        summary: fc.option(textArbitrary(options, 20), { nil: undefined }),
        ...(options.extensionEntries ? { extension: extensionArbitrary(options) } : {}),
      }),
    });
  }
  if (options.compactions) {
    steps.push({
      weight: weights.compaction,
      arbitrary: fc.record({
        kind: fc.constant('compaction' as const),
        cut: fraction,
        tokensBefore: fc.integer({ min: 1, max: 250_000 }),
        shortSummary: fc.option(text, { nil: undefined }),
        withDetails: fc.boolean(),
        fromExtension: fc.option(fc.boolean(), { nil: undefined }),
        ...(options.extensionEntries ? { extension: extensionArbitrary(options) } : {}),
      }),
    });
  }
  return fc.oneof(...steps);
}

/** A user turn: plans always start with one, so every generated session has a conversation. */
export function firstTurnArbitrary(options: StepArbitraryOptions): fc.Arbitrary<SessionStep> {
  return userTurnArbitrary(options);
}
