// The facts the offline summariser keeps, in one shape whether they come from a transcript or from
// a previous summary, so that merging repeated compactions (merge-facts.ts) is mostly a union;
// and the Next Steps that follow from the other lists.

export interface SummaryFacts {
  /** Earlier user requests, one line each, oldest first. */
  readonly earlierRequests: readonly string[];
  /** The latest user request, word for word. */
  readonly latestRequest: string | undefined;
  readonly constraints: readonly string[];
  /** Completed tool actions (`read \`src/a.ts\``), oldest first. */
  readonly done: readonly string[];
  /** Tool calls that had no result when the transcript ended. */
  readonly inProgress: readonly string[];
  /** Actions whose latest run reported an error: `<action> — <error line>`. */
  readonly blocked: readonly string[];
  readonly decisions: readonly string[];
  readonly nextSteps: readonly string[];
  readonly filesRead: readonly string[];
  readonly filesModified: readonly string[];
  readonly filesMentioned: readonly string[];
  /** Error lines seen in tool results, trimmed, each where it was last seen (the latest last). */
  readonly errors: readonly string[];
  /** A question the assistant ended on, word for word. */
  readonly pendingQuestion: string | undefined;
  /** Other context worth keeping (hook context lines, unrecognised parts of a previous summary). */
  readonly notes: readonly string[];
  /** The caller's custom instructions, word for word; never carried into a later summary. */
  readonly requestedFocus: string | undefined;
  /** Facts and sentences that share words with the requested focus. */
  readonly focusMatches: readonly string[];
}

/** The items of `lists` in order, each once. */
export function union(...lists: ReadonlyArray<readonly string[]>): string[] {
  return [...new Set(lists.flat())];
}

/** The items of `lists` each once, where it last occurs: the newest stays last. */
export function unionLatest(...lists: ReadonlyArray<readonly string[]>): string[] {
  return union([...lists.flat()].reverse()).reverse();
}

/** Sorted by UTF-16 code units (independent of the locale), without repeats. */
export function sortedPaths(paths: Iterable<string>): string[] {
  return [...new Set(paths)].sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
}

/** Cuts `text` to `limit` characters, marking the cut with an ellipsis. */
export function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1).trimEnd()}…`;
}

/** The first non-empty line of `text`, clipped. */
export function firstLine(text: string, limit: number): string {
  const line = text.split('\n').find((candidate) => candidate.trim().length > 0) ?? '';
  return clip(line.trim(), limit);
}

/** The Next Steps item of a conversation that ends with the user's request. */
export const RESPOND_STEP = 'Respond to the latest request (see Goal).';
const CONTINUE_STEP = 'Continue from the latest request (see Goal).';
const COMPLETE_STEP = 'Complete the pending tool calls (see In Progress).';
const RESOLVE_STEP = 'Resolve the blocked items (see Blocked).';
const ANSWER_STEP = "Wait for the user's answer to the pending question (see Critical Context).";
const derivedSteps = new Set([CONTINUE_STEP, COMPLETE_STEP, RESOLVE_STEP, ANSWER_STEP]);

/**
 * Next Steps that agree with the other lists: pending calls, blocked items and a pending
 * question each add their step only while they exist (a step read back from a previous summary
 * is dropped once its list is empty); with nothing else, "continue".
 */
export function withDerivedSteps(facts: SummaryFacts): SummaryFacts {
  const kept = facts.nextSteps.filter((step) => !derivedSteps.has(step));
  const respond = kept.filter((step) => step === RESPOND_STEP);
  const extracted = kept.filter((step) => step !== RESPOND_STEP);
  const steps = [
    ...respond,
    ...(facts.inProgress.length > 0 ? [COMPLETE_STEP] : []),
    ...(facts.blocked.length > 0 ? [RESOLVE_STEP] : []),
    ...(facts.pendingQuestion !== undefined ? [ANSWER_STEP] : []),
    ...extracted,
  ];
  return { ...facts, nextSteps: steps.length > 0 ? steps : [CONTINUE_STEP] };
}
