// The lifecycle of a summary attempt (a compaction, or the branch summary of a navigation) as a
// workflow in the decider style (DESIGN.md decision 1; decision 0012): a pure `decide` and
// `evolve` over what happened to the attempt (its inputs), and what to do next as data (its
// effects). The engine's runner carries the effects out (preparing, appending, calling the hooks
// and the summarisers) and answers each with the input it came to; the use cases supply only what
// differs between them: how a round prepares, their start and record commands, how they produce a
// summary, and what their outcome looks like.
//
// The lifecycle both share: prepare → start (stored once; a start another engine stored first is
// left to it) → produce the summary → record it. Every attempt that started ends in exactly one
// terminal event: recorded, or skipped, cancelled or failed, with what its summarisers spent over
// all its rounds. A preparation can skip (the attempt starts and ends skipped in one write, with no
// model call) or decline (nothing is recorded; the use case settles it). A record that finds the
// session moved on is stale: the attempt prepares again while it has rounds left, else ends
// skipped as stale. An error before the start is stored is the caller's; after it, an abort ends
// the attempt cancelled and anything else failed, unless another writer ended it meanwhile.
import type { Usage } from '../entries/messages';
import type { AttemptError } from '../decider/session-events';
import { addUsage } from '../entries/usage-bounds';
import type { SessionCommand, SummaryCallsRecord } from '../decider/session-commands';

export type AttemptWorkflowKind = 'compaction' | 'branch_summary';

/** The reason an attempt stopped by its abort signal ends cancelled with. */
export const ATTEMPT_ABORTED_REASON = 'aborted';
/** The reason an attempt whose session moved on while it summarised ends skipped with. */
export const ATTEMPT_STALE_REASON = 'stale';

/** What an attempt's summarisers spent over all its rounds: the latest model, the usage added up. */
export interface AttemptSpending {
  readonly model?: string;
  readonly usage?: Usage;
}

/** How a round's preparation came out. */
export type AttemptVerdict =
  /** Summarise. */
  | { readonly kind: 'ready' }
  /** Record the attempt as skipped, without a model call. */
  | { readonly kind: 'skip'; readonly reason: string }
  /** Record nothing: the use case settles the request another way. */
  | { readonly kind: 'decline'; readonly reason: string };

/** What happened to the attempt: the answer to the effect the runner carried out last. */
export type AttemptInput<Preparation, Draft extends AttemptSpending> =
  | { readonly type: 'Prepared'; readonly preparation: Preparation; readonly verdict: AttemptVerdict }
  | { readonly type: 'StartStored' }
  /** Another engine stored the same start first: it summarises. */
  | { readonly type: 'StartTakenElsewhere' }
  /** The summary, and whether the attempt's abort signal tripped while it was made. */
  | { readonly type: 'Produced'; readonly draft: Draft; readonly aborted: boolean }
  /** A hook cancelled the attempt, or the abort signal tripped before the summary was asked for. */
  | { readonly type: 'ProductionCancelled'; readonly reason: string }
  | { readonly type: 'RecordStored'; readonly redelivered: boolean }
  /** The record wrote nothing: the session moved on from where the round prepared. */
  | { readonly type: 'RecordStale' }
  | { readonly type: 'EndingStored'; readonly redelivered: boolean }
  | {
      readonly type: 'Failed';
      readonly error: AttemptError;
      /** The error is the attempt's abort signal. */
      readonly aborted: boolean;
      /** The write was refused because the attempt had already ended (another writer ended it). */
      readonly endedElsewhere: boolean;
    };

/** How an attempt that records no summary ends. */
export type AttemptEnding =
  | { readonly kind: 'skip'; readonly reason: string }
  | { readonly kind: 'cancel'; readonly reason: string }
  | { readonly kind: 'fail'; readonly error: AttemptError };

/** What the runner does next. */
export type AttemptEffect<Preparation, Draft extends AttemptSpending> =
  | { readonly type: 'Prepare'; readonly round: number }
  | { readonly type: 'AppendStart'; readonly preparation: Preparation }
  | { readonly type: 'Produce'; readonly preparation: Preparation }
  /** The draft's usage is what every round spent. */
  | {
      readonly type: 'AppendRecord';
      readonly preparation: Preparation;
      readonly draft: Draft;
      readonly spent: AttemptSpending;
    }
  /** `start`: the attempt's start is not stored yet and goes first, in the same write. */
  | {
      readonly type: 'AppendEnding';
      readonly ending: AttemptEnding;
      readonly spent: AttemptSpending;
      readonly start?: Preparation;
    }
  /** The attempt ended (here, or by another writer when `redelivered`): answer its outcome. */
  | { readonly type: 'Finish'; readonly redelivered: boolean }
  | { readonly type: 'Decline'; readonly reason: string }
  /** Another engine runs the attempt. */
  | { readonly type: 'FollowElsewhere' }
  /** The error before the attempt started, or while its ending was written, is the caller's. */
  | { readonly type: 'Raise' };

/** The attempt as the workflow knows it. */
export interface AttemptProgress<Preparation> {
  /** How many rounds may prepare (a stale record prepares again while rounds are left). */
  readonly maxRounds: number;
  readonly round: number;
  /** Its start is stored. */
  readonly started: boolean;
  /** Its ending is being written. */
  readonly ending: boolean;
  /** The current round's preparation. */
  readonly preparation: Preparation | undefined;
  readonly spent: AttemptSpending;
}

export interface AttemptOptions {
  readonly maxRounds: number;
  /** Its start was stored before (by this engine, which runs it again). */
  readonly alreadyStarted: boolean;
}

/** The attempt before anything happened, and the first effect: prepare the first round. */
export function beginAttempt<Preparation, Draft extends AttemptSpending>(
  options: AttemptOptions,
): { readonly progress: AttemptProgress<Preparation>; readonly effect: AttemptEffect<Preparation, Draft> } {
  if (!Number.isInteger(options.maxRounds) || options.maxRounds < 1) {
    throw new RangeError(`an attempt prepares at least once, not ${options.maxRounds} times`);
  }
  return {
    progress: {
      maxRounds: options.maxRounds,
      round: 1,
      started: options.alreadyStarted,
      ending: false,
      preparation: undefined,
      spent: {},
    },
    effect: { type: 'Prepare', round: 1 },
  };
}

/** What to do after `input`, given the attempt before it. */
export function decideAttempt<Preparation, Draft extends AttemptSpending>(
  progress: AttemptProgress<Preparation>,
  input: AttemptInput<Preparation, Draft>,
): AttemptEffect<Preparation, Draft> {
  switch (input.type) {
    case 'Prepared':
      switch (input.verdict.kind) {
        case 'ready':
          return progress.started
            ? { type: 'Produce', preparation: input.preparation }
            : { type: 'AppendStart', preparation: input.preparation };
        case 'skip':
          return ending(progress, { kind: 'skip', reason: input.verdict.reason }, input.preparation);
        case 'decline':
          return { type: 'Decline', reason: input.verdict.reason };
      }
      break;
    case 'StartStored':
      return { type: 'Produce', preparation: current(progress) };
    case 'StartTakenElsewhere':
      return { type: 'FollowElsewhere' };
    case 'Produced': {
      const spent = spentWith(progress.spent, input.draft);
      if (input.aborted)
        return ending({ ...progress, spent }, { kind: 'cancel', reason: ATTEMPT_ABORTED_REASON });
      const draft = spent.usage !== undefined ? { ...input.draft, usage: spent.usage } : input.draft;
      return { type: 'AppendRecord', preparation: current(progress), draft, spent };
    }
    case 'ProductionCancelled':
      return ending(progress, { kind: 'cancel', reason: input.reason });
    case 'RecordStored':
    case 'EndingStored':
      return { type: 'Finish', redelivered: input.redelivered };
    case 'RecordStale':
      return progress.round < progress.maxRounds
        ? { type: 'Prepare', round: progress.round + 1 }
        : ending(progress, { kind: 'skip', reason: ATTEMPT_STALE_REASON });
    case 'Failed':
      // A write refused because the attempt ended already: by another writer, once it started or
      // in the write that would have started and ended it.
      if (input.endedElsewhere && (progress.started || progress.ending)) {
        return { type: 'Finish', redelivered: true };
      }
      if (!progress.started || progress.ending) return { type: 'Raise' };
      return ending(
        progress,
        input.aborted
          ? { kind: 'cancel', reason: ATTEMPT_ABORTED_REASON }
          : { kind: 'fail', error: input.error },
      );
  }
  throw new Error(`an attempt has no step for ${JSON.stringify(input)}`);
}

/** The attempt after `input`. */
export function evolveAttempt<Preparation, Draft extends AttemptSpending>(
  progress: AttemptProgress<Preparation>,
  input: AttemptInput<Preparation, Draft>,
): AttemptProgress<Preparation> {
  switch (input.type) {
    case 'Prepared':
      return {
        ...progress,
        preparation: input.preparation,
        ending: input.verdict.kind === 'skip',
      };
    case 'StartStored':
      return { ...progress, started: true };
    case 'Produced':
      return { ...progress, spent: spentWith(progress.spent, input.draft), ending: input.aborted };
    case 'ProductionCancelled':
      return { ...progress, ending: true };
    case 'RecordStale':
      return progress.round < progress.maxRounds
        ? { ...progress, round: progress.round + 1, preparation: undefined }
        : { ...progress, ending: true };
    case 'Failed':
      return progress.started && !progress.ending && !input.endedElsewhere
        ? { ...progress, ending: true }
        : progress;
    case 'StartTakenElsewhere':
    case 'RecordStored':
    case 'EndingStored':
      return progress;
  }
}

/** The fields every ending records besides its reason or error. */
export interface AttemptEndingFields extends AttemptSpending, SummaryCallsRecord {
  /** Measured by the engine's clock since the attempt started. */
  readonly durationMs: number;
}

const ENDING_COMMANDS = {
  compaction: { skip: 'SkipCompaction', cancel: 'CancelCompaction', fail: 'FailCompaction' },
  branch_summary: { skip: 'SkipBranchSummary', cancel: 'CancelBranchSummary', fail: 'FailBranchSummary' },
} as const;

/** The command that ends an attempt of `kind` as `ending` says. */
export function attemptEndingCommand(
  kind: AttemptWorkflowKind,
  attemptId: string,
  ending: AttemptEnding,
  fields: AttemptEndingFields,
): SessionCommand {
  const type = ENDING_COMMANDS[kind][ending.kind];
  const data =
    ending.kind === 'fail'
      ? { attemptId, error: ending.error, ...fields }
      : { attemptId, reason: ending.reason, ...fields };
  return { type, data } as SessionCommand;
}

function ending<Preparation, Draft extends AttemptSpending>(
  progress: AttemptProgress<Preparation>,
  how: AttemptEnding,
  start?: Preparation,
): AttemptEffect<Preparation, Draft> {
  return {
    type: 'AppendEnding',
    ending: how,
    spent: progress.spent,
    ...(!progress.started && start !== undefined ? { start } : {}),
  };
}

function current<Preparation>(progress: AttemptProgress<Preparation>): Preparation {
  if (progress.preparation === undefined) throw new Error('an attempt has no preparation in this round');
  return progress.preparation;
}

function spentWith(spent: AttemptSpending, draft: AttemptSpending): AttemptSpending {
  const model = draft.model ?? spent.model;
  // One usage reported so far is kept as reported; two are added up.
  const usage =
    spent.usage === undefined || draft.usage === undefined
      ? (draft.usage ?? spent.usage)
      : addUsage([spent.usage, draft.usage]);
  return { ...(model !== undefined ? { model } : {}), ...(usage !== undefined ? { usage } : {}) };
}
