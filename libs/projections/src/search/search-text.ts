// What the session search indexes of an entry and how a query is read. The text of an entry is
// what the model would see of it (messages, tool calls and results, summaries), plus labels and
// session names, cut at MAX_INDEXED_CHARACTERS; a query is at most MAX_SEARCH_TERMS words, each
// matched whole (case and accents ignored), the last one also as the start of a word when it
// has at least three characters. Queries never reach the index as syntax: only words do.
import { textsToCount, type SessionEntry } from '@strata/session';

/** The characters of one entry that are indexed; text past it is not found. */
export const MAX_INDEXED_CHARACTERS = 16_384;
/** The longest query read, in characters. */
export const MAX_SEARCH_QUERY_LENGTH = 256;
export const MAX_SEARCH_TERMS = 8;
const MAX_TERM_LENGTH = 64;
const MIN_PREFIX_LENGTH = 3;

function bounded(parts: readonly string[]): string {
  let text = '';
  for (const part of parts) {
    if (part === '') continue;
    text += (text === '' ? '' : '\n') + part;
    if (text.length >= MAX_INDEXED_CHARACTERS) return text.slice(0, MAX_INDEXED_CHARACTERS);
  }
  return text;
}

/** The searchable text of an entry ('' when it has none). */
export function entrySearchText(entry: SessionEntry): string {
  if (entry.type === 'label') return bounded([entry.label ?? '']);
  if (entry.type === 'session_info') return bounded([entry.name ?? '']);
  return bounded(textsToCount([entry]));
}

/** Lower-cased, accents removed: how both the index and the queries see words. */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** The words of a text (letters and digits), folded. */
export function wordsOf(text: string): string[] {
  return foldText(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

export interface SearchTerms {
  readonly words: readonly string[];
  /** Whether the last word also matches as the start of a longer word. */
  readonly lastIsPrefix: boolean;
}

/** The words of a query (at most MAX_SEARCH_TERMS, each cut at 64 characters); undefined when it has none. */
export function searchTerms(query: string): SearchTerms | undefined {
  const words = [...new Set(wordsOf(query.slice(0, MAX_SEARCH_QUERY_LENGTH)))]
    .slice(0, MAX_SEARCH_TERMS)
    .map((word) => word.slice(0, MAX_TERM_LENGTH));
  const last = words[words.length - 1];
  if (last === undefined) return undefined;
  return { words, lastIsPrefix: last.length >= MIN_PREFIX_LENGTH };
}

/** Whether a text holds every term (the in-memory index's match, the same rule as SQLite's). */
export function textMatches(text: string, terms: SearchTerms): boolean {
  const words = new Set(wordsOf(text));
  return terms.words.every((word, index) => {
    if (words.has(word)) return true;
    if (!terms.lastIsPrefix || index !== terms.words.length - 1) return false;
    for (const candidate of words) if (candidate.startsWith(word)) return true;
    return false;
  });
}

/** A short excerpt of `text` around the first term found (for in-memory results). */
export function excerpt(text: string, terms: SearchTerms, width = 120): string {
  const folded = foldText(text);
  let at = -1;
  for (const word of terms.words) {
    const found = folded.indexOf(word);
    if (found !== -1 && (at === -1 || found < at)) at = found;
  }
  const start = Math.max(0, at - Math.floor(width / 3));
  const piece = text
    .slice(start, start + width)
    .replace(/\s+/g, ' ')
    .trim();
  return `${start > 0 ? '…' : ''}${piece}${start + width < text.length ? '…' : ''}`;
}
