// Renders the offline summariser's facts as Markdown with the reference section sets (§10), and
// keeps the result within a character budget by dropping the oldest list items first. The
// latest user request and a pending question are never cut.
import type { SummaryFacts } from './summary-facts';

/** The first line of every offline summary. */
export const OFFLINE_SUMMARY_LABEL =
  '_Extractive summary made without a language model: Strata copied these facts from the conversation without interpreting them._';

export const LATEST_REQUEST_LEAD = 'Latest request (word for word):';
export const PENDING_QUESTION_HEADING = '### Pending question from the assistant (word for word)';
export const REQUESTED_FOCUS_HEADING = '## Requested Focus';
/** Says what the offline summariser did with custom instructions. */
export const REQUESTED_FOCUS_NOTICE =
  '_The offline summariser does not follow instructions. It keeps them word for word and lists the sentences and facts that share their words._';
const NO_FOCUS_MATCH = '- (nothing in the conversation shares their words)';

export const criticalContextHeadings = {
  filesRead: '### Files read',
  filesModified: '### Files modified',
  filesMentioned: '### Other files mentioned',
  errors: '### Errors seen',
  notes: '### Notes',
} as const;

export type ListName = Exclude<keyof SummaryFacts, 'latestRequest' | 'pendingQuestion' | 'requestedFocus'>;

/** Lists in the order they give way when the summary is over budget. */
const trimOrder: readonly ListName[] = [
  'done',
  'decisions',
  'earlierRequests',
  'notes',
  'constraints',
  'errors',
  'blocked',
  'filesMentioned',
  'filesRead',
  'inProgress',
  'focusMatches',
  'nextSteps',
  'filesModified',
];

export type SectionSet = 'checkpoint' | 'turn_prefix' | 'branch';

/** A fenced block holding `text` exactly, with a fence longer than any backtick run inside. */
export function fenced(text: string): string {
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return `${fence}\n${text}\n${fence}`;
}

/** The line that stands for `count` list items dropped to fit the budget. */
export function omissionLine(count: number): string {
  return `- (${count} earlier ${count === 1 ? 'item' : 'items'} left out)`;
}

type Omitted = Readonly<Partial<Record<ListName, number>>>;

function list(
  items: readonly string[],
  omitted: number | undefined,
  marker = '-',
  empty = '- (none)',
): string[] {
  const lines = items.map((item) => `${marker} ${item}`);
  if (omitted !== undefined && omitted > 0) lines.unshift(omissionLine(omitted));
  return lines.length > 0 ? lines : [empty];
}

function numbered(items: readonly string[], omitted: number | undefined): string[] {
  const lines = items.map((item, index) => `${index + 1}. ${item}`);
  if (omitted !== undefined && omitted > 0) lines.unshift(omissionLine(omitted));
  return lines.length > 0 ? lines : ['1. (none)'];
}

const code = (path: string): string => `\`${path}\``;

function goal(facts: SummaryFacts, omitted: Omitted): string[] {
  const lines = ['## Goal'];
  if (facts.earlierRequests.length > 0 || (omitted.earlierRequests ?? 0) > 0) {
    lines.push(...list(facts.earlierRequests, omitted.earlierRequests));
  }
  if (facts.latestRequest !== undefined) lines.push(LATEST_REQUEST_LEAD, fenced(facts.latestRequest));
  if (lines.length === 1) lines.push('- (no request recorded)');
  return lines;
}

function progress(facts: SummaryFacts, omitted: Omitted, heading = '## Progress'): string[] {
  return [
    heading,
    '### Done',
    ...list(facts.done, omitted.done, '- [x]'),
    '### In Progress',
    ...list(facts.inProgress, omitted.inProgress, '- [ ]'),
    '### Blocked',
    ...list(facts.blocked, omitted.blocked),
  ];
}

function criticalContext(facts: SummaryFacts, omitted: Omitted, heading = '## Critical Context'): string[] {
  const lines = [heading];
  const subsection = (title: string, items: readonly string[], name: ListName): void => {
    if (items.length === 0 && (omitted[name] ?? 0) === 0) return;
    lines.push(title, ...list(items, omitted[name]));
  };
  subsection(criticalContextHeadings.filesRead, facts.filesRead.map(code), 'filesRead');
  subsection(criticalContextHeadings.filesModified, facts.filesModified.map(code), 'filesModified');
  subsection(criticalContextHeadings.filesMentioned, facts.filesMentioned.map(code), 'filesMentioned');
  subsection(criticalContextHeadings.errors, facts.errors, 'errors');
  if (facts.pendingQuestion !== undefined)
    lines.push(PENDING_QUESTION_HEADING, fenced(facts.pendingQuestion));
  subsection(criticalContextHeadings.notes, facts.notes, 'notes');
  if (lines.length === 1) lines.push('- (none)');
  return lines;
}

function requestedFocus(facts: SummaryFacts, omitted: Omitted): string[][] {
  if (facts.requestedFocus === undefined) return [];
  return [
    [
      REQUESTED_FOCUS_HEADING,
      REQUESTED_FOCUS_NOTICE,
      fenced(facts.requestedFocus),
      ...list(facts.focusMatches, omitted.focusMatches, '-', NO_FOCUS_MATCH),
    ],
  ];
}

function sections(facts: SummaryFacts, set: SectionSet, omitted: Omitted): string[][] {
  return [...referenceSections(facts, set, omitted), ...requestedFocus(facts, omitted)];
}

function referenceSections(facts: SummaryFacts, set: SectionSet, omitted: Omitted): string[][] {
  const constraints = ['## Constraints & Preferences', ...list(facts.constraints, omitted.constraints)];
  const decisions = ['## Key Decisions', ...list(facts.decisions, omitted.decisions)];
  const nextSteps = ['## Next Steps', ...numbered(facts.nextSteps, omitted.nextSteps)];
  switch (set) {
    case 'checkpoint':
      return [
        goal(facts, omitted),
        constraints,
        progress(facts, omitted),
        decisions,
        nextSteps,
        criticalContext(facts, omitted),
      ];
    case 'branch':
      return [goal(facts, omitted), constraints, progress(facts, omitted), decisions, nextSteps];
    case 'turn_prefix':
      return [
        [
          '## Original Request',
          facts.latestRequest === undefined ? '(not part of this prefix)' : fenced(facts.latestRequest),
        ],
        progress(facts, omitted, '## Early Progress'),
        criticalContext(facts, omitted, '## Context for Suffix'),
      ];
    default: {
      const unreachable: never = set;
      throw new Error(`unknown section set ${String(unreachable)}`);
    }
  }
}

function render(facts: SummaryFacts, set: SectionSet, omitted: Omitted): string {
  return [[OFFLINE_SUMMARY_LABEL], ...sections(facts, set, omitted)]
    .map((lines) => lines.join('\n'))
    .join('\n\n');
}

/** Approximate characters an item takes once rendered (marker, backticks, newline). */
const ITEM_OVERHEAD = 8;
/** Approximate characters of a "left out" line. */
const OMISSION_LINE = 40;

/**
 * The Markdown summary of `facts` with the given sections, at most about `budgetCharacters` long:
 * when longer, the oldest items of the least important lists are dropped (and counted).
 */
export function renderSummary(facts: SummaryFacts, set: SectionSet, budgetCharacters: number): string {
  let current = facts;
  const omitted: Partial<Record<ListName, number>> = {};
  let text = render(current, set, omitted);
  for (let pass = 0; pass < 4 && text.length > budgetCharacters; pass += 1) {
    let excess = text.length - budgetCharacters;
    const trimmed: Partial<Record<ListName, readonly string[]>> = {};
    for (const name of trimOrder) {
      if (excess <= 0) break;
      const items = [...current[name]];
      if (items.length > 0 && (omitted[name] ?? 0) === 0) excess += OMISSION_LINE;
      while (excess > 0 && items.length > 0) {
        excess -= (items.shift() ?? '').length + ITEM_OVERHEAD;
        omitted[name] = (omitted[name] ?? 0) + 1;
      }
      trimmed[name] = items;
    }
    current = { ...current, ...trimmed };
    text = render(current, set, omitted);
  }
  return text;
}
