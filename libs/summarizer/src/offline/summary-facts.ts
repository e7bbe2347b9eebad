// The facts the offline summariser keeps, in one shape whether they come from a transcript or from
// a previous summary, so that merging repeated compactions is a plain union.

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
  /** Error lines seen in tool results, trimmed. */
  readonly errors: readonly string[];
  /** A question the assistant ended on, word for word. */
  readonly pendingQuestion: string | undefined;
  /** Other context worth keeping (hook context lines, unrecognised parts of a previous summary). */
  readonly notes: readonly string[];
}

export const emptyFacts: SummaryFacts = {
  earlierRequests: [],
  latestRequest: undefined,
  constraints: [],
  done: [],
  inProgress: [],
  blocked: [],
  decisions: [],
  nextSteps: [],
  filesRead: [],
  filesModified: [],
  filesMentioned: [],
  errors: [],
  pendingQuestion: undefined,
  notes: [],
};

/** The items of `lists` in order, each once. */
export function union(...lists: ReadonlyArray<readonly string[]>): string[] {
  return [...new Set(lists.flat())];
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

/**
 * Merges a previous summary's facts with those of the newer transcript: everything earlier is kept,
 * finished work leaves In Progress and Blocked, file lists accumulate (a file once modified is no
 * longer listed as only read), and the newer latest request, next steps and pending question win.
 */
export function mergeFacts(
  previous: SummaryFacts,
  current: SummaryFacts,
  transcriptIsEmpty: boolean,
): SummaryFacts {
  const concerns = (item: string, action: string): boolean =>
    item === action || item.startsWith(`${action} —`);
  const nowDone = (item: string): boolean => current.done.some((action) => concerns(item, action));
  const nowBlocked = (action: string): boolean => current.blocked.some((item) => concerns(item, action));
  const done = union(
    previous.done.filter((action) => !nowBlocked(action)),
    current.done,
  );
  const filesModified = sortedPaths([...previous.filesModified, ...current.filesModified]);
  const filesRead = sortedPaths([...previous.filesRead, ...current.filesRead]).filter(
    (path) => !filesModified.includes(path),
  );
  const listed = new Set([...filesRead, ...filesModified]);
  const olderLatest =
    current.latestRequest !== undefined && previous.latestRequest !== undefined
      ? [firstLine(previous.latestRequest, 200)]
      : [];
  return {
    earlierRequests: union(previous.earlierRequests, olderLatest, current.earlierRequests),
    latestRequest: current.latestRequest ?? previous.latestRequest,
    constraints: union(previous.constraints, current.constraints),
    done,
    inProgress: union(
      previous.inProgress.filter((item) => !nowDone(item)),
      current.inProgress,
    ),
    blocked: union(
      previous.blocked.filter((item) => !nowDone(item)),
      current.blocked,
    ),
    decisions: union(previous.decisions, current.decisions),
    nextSteps: transcriptIsEmpty ? previous.nextSteps : current.nextSteps,
    filesRead,
    filesModified,
    filesMentioned: sortedPaths([...previous.filesMentioned, ...current.filesMentioned]).filter(
      (path) => !listed.has(path),
    ),
    errors: union(previous.errors, current.errors),
    pendingQuestion: transcriptIsEmpty ? previous.pendingQuestion : current.pendingQuestion,
    notes: union(previous.notes, current.notes),
  };
}
