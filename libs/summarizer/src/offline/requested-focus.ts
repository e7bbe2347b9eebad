// What the offline summariser does with custom instructions (`/compact <text>`, a navigation's):
// it cannot follow them, so it says so, keeps them word for word, and lists the sentences of the
// conversation and the facts of the summary that share words with them. Those items give way
// last but one when the summary is over budget.
import { sentences } from './conversation-facts';
import type { TranscriptBlock } from './summary-prompt';
import { type SummaryFacts, clip, union } from './summary-facts';

/** Items of the focus list kept at most (the latest ones). */
const FOCUS_MATCHES_KEPT = 20;
const MATCH_LIMIT = 240;

/** Words of an instruction that say how to summarise, not what about. */
const instructionWords = new Set(
  (
    'the and for with about that this these those what which when where into onto from only also more ' +
    'most less keep focus focusing focused please summary summarise summarize summarising summarizing ' +
    'mention mentioned include including details detail make sure list note notes any all every each ' +
    'them they their there here have has had was were are not but our your you its how why who should ' +
    'must would could can will just very much many some such than then other others especially particular ' +
    'particularly everything anything something thing things part parts'
  ).split(' '),
);

/** The words of `instructions` that name a subject: three letters or more, paths and names whole. */
export function focusWords(instructions: string): string[] {
  const words = instructions
    .split(/[^\w./@-]+/)
    .map((word) => word.replace(/^[.-]+|[.-]+$/g, '').toLowerCase())
    .filter((word) => word.length >= 3 && !instructionWords.has(word));
  return [...new Set(words)];
}

function escaped(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** The facts with the requested focus and the items that share its words. */
export function withRequestedFocus(
  facts: SummaryFacts,
  instructions: string | undefined,
  transcript: readonly TranscriptBlock[],
): SummaryFacts {
  const requested = instructions?.trim();
  if (requested === undefined || requested.length === 0) return facts;
  const words = focusWords(requested);
  const pattern =
    words.length === 0 ? undefined : new RegExp(`(?<![\\w])(?:${words.map(escaped).join('|')})`, 'i');
  const prose = transcript
    .filter((block) => block.kind === 'user' || block.kind === 'assistant')
    .flatMap((block) => sentences(block.text));
  const candidates = union(
    prose,
    facts.constraints,
    facts.decisions,
    facts.done,
    facts.blocked,
    facts.errors,
    facts.filesModified.map((path) => `\`${path}\``),
    facts.filesRead.map((path) => `\`${path}\``),
    facts.notes,
  );
  const matches = pattern === undefined ? [] : candidates.filter((candidate) => pattern.test(candidate));
  return {
    ...facts,
    requestedFocus: requested,
    focusMatches: union(matches.map((match) => clip(match, MATCH_LIMIT))).slice(-FOCUS_MATCHES_KEPT),
  };
}
