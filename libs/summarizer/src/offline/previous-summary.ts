// Reads a previous summary back into facts, so the offline summariser can merge repeated
// compactions. It understands its own layout exactly and any other Markdown summary with the
// reference headings loosely; text it cannot place is kept as notes, and every file path it
// mentions (including `<read-files>` / `<modified-files>` blocks) is kept. The turn-context
// heading of a split-turn compaction starts the turn-prefix part: a heading, never an item.
import { TURN_CONTEXT_HEADING } from '@strata/session';
import { filePathsIn } from './file-paths';
import {
  LATEST_REQUEST_LEAD,
  OFFLINE_SUMMARY_LABEL,
  PENDING_QUESTION_HEADING,
  REQUESTED_FOCUS_HEADING,
  criticalContextHeadings,
} from './render-summary';
import { type SummaryFacts, firstLine, sortedPaths } from './summary-facts';

interface Section {
  readonly heading: string;
  readonly lines: string[];
}

const fenceLine = /^(`{3,})\s*$/;
/** The heading a split-turn compaction puts before its turn-prefix part, read as a section. */
const TURN_CONTEXT_SECTION = '## Turn Context';

/** Splits Markdown on `##`/`###` headings outside fenced blocks; fenced blocks stay one line each. */
function sectionsOf(text: string): Section[] {
  const sections: Section[] = [{ heading: '', lines: [] }];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const fence = fenceLine.exec(line)?.[1];
    const current = sections.at(-1) ?? { heading: '', lines: [] };
    if (fence !== undefined) {
      const body: string[] = [];
      for (index += 1; index < lines.length && lines[index]?.trimEnd() !== fence; index += 1)
        body.push(lines[index] ?? '');
      current.lines.push(`\u0000${body.join('\n')}`);
    } else if (/^#{2,3} /.test(line)) {
      sections.push({ heading: line.trim(), lines: [] });
    } else if (line.trim() === TURN_CONTEXT_HEADING) {
      sections.push({ heading: TURN_CONTEXT_SECTION, lines: [] });
    } else if (line.trim().length > 0 && line.trim() !== OFFLINE_SUMMARY_LABEL) {
      current.lines.push(line);
    }
  }
  return sections;
}

const isFenced = (line: string): boolean => line.startsWith('\u0000');
const fencedText = (line: string): string => line.slice(1);

/** A list line without its marker (`- `, `* `, `1. `, `[x] `, `[ ] `, backticks around a path). */
function item(line: string): string {
  return line
    .trim()
    .replace(/^(?:[-*+]|\d+[.)])\s+/, '')
    .replace(/^\[[ xX]\]\s+/, '')
    .trim();
}

const placeholder =
  /^[-*_]{3,}$|^\((?:none|none recorded|no request recorded|not part of this prefix)\)$|^\(\d+ earlier items? left out\)$/;

function items(lines: readonly string[]): string[] {
  return lines
    .filter((line) => !isFenced(line))
    .map(item)
    .filter((text) => text.length > 0 && !placeholder.test(text));
}

function paths(lines: readonly string[]): string[] {
  return items(lines).map((text) => text.replace(/^`(.*)`$/, '$1'));
}

/** Paths listed one per line inside `<tag>…</tag>` blocks (the file-operation tags). */
function taggedPaths(text: string, tag: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n?</${tag}>`, 'g'))) {
    found.push(
      ...(match[1] ?? '')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.length > 0),
    );
  }
  return found;
}

type ListFacts = {
  [K in keyof SummaryFacts as SummaryFacts[K] extends readonly string[] ? K : never]: string[];
};

function emptyLists(): ListFacts {
  return {
    earlierRequests: [],
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
    notes: [],
    focusMatches: [],
  };
}

function headingName(heading: string): string {
  return heading
    .replace(/^#+\s*/, '')
    .replace(/[*_:]/g, '')
    .trim()
    .toLowerCase();
}

/**
 * The summary without its Requested Focus sections (each is the last section of its part): a
 * focus belongs to the request that asked for it.
 */
function withoutRequestedFocus(summary: string): string {
  const kept: string[] = [];
  let skipping = false;
  for (const line of summary.split('\n')) {
    if (line.trim() === REQUESTED_FOCUS_HEADING) skipping = true;
    else if (line.trim() === TURN_CONTEXT_HEADING) skipping = false;
    if (!skipping) kept.push(line);
  }
  return kept.join('\n');
}

export function previousSummaryFacts(summary: string): SummaryFacts {
  const facts = emptyLists();
  let latestRequest: string | undefined;
  let pendingQuestion: string | undefined;
  const withoutTags = withoutRequestedFocus(
    summary.replace(/<(read-files|modified-files)>[\s\S]*?<\/\1>/g, ''),
  );
  let top = '';
  let inTurnContext = false;
  for (const section of sectionsOf(withoutTags)) {
    const name = headingName(section.heading);
    if (section.heading.startsWith('## ')) top = name;
    if (section.heading === TURN_CONTEXT_SECTION) {
      inTurnContext = true;
      continue;
    }
    const lines = section.lines;
    if (name === 'goal' || name === 'original request') {
      const verbatim = lines.filter(isFenced).map(fencedText).at(-1);
      if (verbatim !== undefined && latestRequest !== undefined && verbatim !== latestRequest)
        facts.earlierRequests.push(firstLine(latestRequest, 200));
      if (verbatim !== undefined) latestRequest = verbatim;
      // The turn began with a user message after the history part's last assistant message.
      if (verbatim !== undefined && inTurnContext) pendingQuestion = undefined;
      facts.earlierRequests.push(...items(lines.filter((line) => line.trim() !== LATEST_REQUEST_LEAD)));
    } else if (name === 'constraints & preferences') facts.constraints.push(...items(lines));
    else if (name === 'done') facts.done.push(...items(lines));
    else if (name === 'in progress') facts.inProgress.push(...items(lines));
    else if (name === 'blocked') facts.blocked.push(...items(lines));
    else if (name === 'key decisions') facts.decisions.push(...items(lines));
    else if (name === 'next steps') facts.nextSteps.push(...items(lines));
    else if (section.heading === criticalContextHeadings.filesRead) facts.filesRead.push(...paths(lines));
    else if (section.heading === criticalContextHeadings.filesModified)
      facts.filesModified.push(...paths(lines));
    else if (section.heading === criticalContextHeadings.filesMentioned)
      facts.filesMentioned.push(...paths(lines));
    else if (section.heading === criticalContextHeadings.errors) facts.errors.push(...items(lines));
    else if (section.heading === PENDING_QUESTION_HEADING)
      pendingQuestion = lines.filter(isFenced).map(fencedText).at(-1);
    else if (top === 'progress' || top === 'early progress') facts.done.push(...items(lines));
    else facts.notes.push(...items(lines));
  }
  facts.filesRead.push(...taggedPaths(summary, 'read-files'));
  facts.filesModified.push(...taggedPaths(summary, 'modified-files'));
  const listed = new Set([...facts.filesRead, ...facts.filesModified, ...facts.filesMentioned]);
  facts.filesMentioned.push(...filePathsIn(withoutTags).filter((path) => !listed.has(path)));
  return {
    ...facts,
    latestRequest,
    pendingQuestion,
    requestedFocus: undefined,
    filesRead: sortedPaths(facts.filesRead),
    filesModified: sortedPaths(facts.filesModified),
    filesMentioned: sortedPaths(facts.filesMentioned),
  };
}
