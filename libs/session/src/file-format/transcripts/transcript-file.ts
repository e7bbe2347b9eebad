// Whole transcript files: telling the format from the lines, converting a file into a header
// and entries (with the line each entry came from), and writing the original file back from
// the entries' kept lines.
import type { SessionEntry, SessionHeader } from '../../entries/entries';
import { isJsonObject, type SessionFileContent } from '../json-lines';
import { createClaudeCodeConverter } from './claude-code';
import { looksLikeClaudeCode } from './claude-code-lines';
import { createCodexConverter } from './codex';
import { looksLikeCodex } from './codex-lines';
import type { TranscriptConverter, TranscriptConverterOptions } from './transcript-converter';
import {
  ORIGINAL_FORMAT_FIELD,
  ORIGINAL_LINES_FIELD,
  isTranscriptFormat,
  splitOriginalLines,
  type OriginalLine,
  type SessionFileFormat,
  type TranscriptFormat,
} from './transcript-lines';

/** Lines read at most to tell a file's format. */
export const DETECTION_LINES = 50;

/** A converter for `format`: lines N.. given the state after lines 0..N-1. */
export function createTranscriptConverter(
  format: TranscriptFormat,
  options: TranscriptConverterOptions = {},
): TranscriptConverter {
  return format === 'claude-code' ? createClaudeCodeConverter(options) : createCodexConverter(options);
}

function firstLinesOf(content: SessionFileContent): string[] {
  if (typeof content === 'string') return content.split('\n', DETECTION_LINES);
  const end = (() => {
    let position = -1;
    for (let count = 0; count < DETECTION_LINES; count += 1) {
      const next = content.indexOf(0x0a, position + 1);
      if (next === -1) return content.length;
      position = next;
    }
    return position;
  })();
  return new TextDecoder('utf-8').decode(content.subarray(0, end)).split('\n');
}

/**
 * The format of a session file, told from its first lines: pi when the first line that reads
 * as JSON is a session header, Claude Code or Codex when a line has their shape. A file none of
 * them recognises is read as pi (whose import then says what is wrong with it).
 */
export function detectSessionFileFormat(content: SessionFileContent): SessionFileFormat {
  let first = true;
  for (const text of firstLinesOf(content)) {
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    if (!isJsonObject(value)) continue;
    if (first && value.type === 'session') return 'pi';
    first = false;
    if (looksLikeClaudeCode(value)) return 'claude-code';
    if (looksLikeCodex(value)) return 'codex';
  }
  return 'pi';
}

export interface ParsedTranscriptFile {
  readonly format: TranscriptFormat;
  readonly header: SessionHeader;
  readonly entries: readonly SessionEntry[];
  /** The 1-based line of the file each entry came from (the last of its lines). */
  readonly entryLines: readonly number[];
  readonly lineCount: number;
}

/** The original lines an entry keeps (none for entries not made from a file). */
export function originalLinesOf(entry: SessionEntry): readonly OriginalLine[] {
  const lines = (entry as Record<string, unknown>)[ORIGINAL_LINES_FIELD];
  if (!Array.isArray(lines)) return [];
  return lines.filter(
    (line): line is OriginalLine =>
      isJsonObject(line) && typeof line.line === 'number' && typeof line.text === 'string',
  );
}

/** The format a stored session was converted from, or undefined for pi's own sessions. */
export function originalFormatOf(header: SessionHeader): TranscriptFormat | undefined {
  const format = (header as Record<string, unknown>)[ORIGINAL_FORMAT_FIELD];
  return isTranscriptFormat(format) ? format : undefined;
}

/** Converts a whole transcript; throws SessionFileError naming the first bad line. */
export function parseTranscriptFile(
  content: SessionFileContent,
  format: TranscriptFormat,
  options: TranscriptConverterOptions = {},
): ParsedTranscriptFile {
  const lines = splitOriginalLines(content);
  const converter = createTranscriptConverter(format, options);
  const entries = [...converter.convert(lines), ...converter.finish()];
  const header = converter.header;
  if (header === undefined) throw new Error('a finished transcript has a header');
  const entryLines = entries.map((entry) => {
    const own = originalLinesOf(entry);
    return own[own.length - 1]?.line ?? 0;
  });
  // An entry without lines of its own (the first of several from one line) is reported at the next line.
  for (let index = entryLines.length - 2; index >= 0; index -= 1) {
    if (entryLines[index] === 0) entryLines[index] = entryLines[index + 1] ?? 0;
  }
  return { format, header, entries, entryLines, lineCount: lines.length };
}

/** Why a stored session cannot give back its original file. */
export class OriginalFileUnavailableError extends Error {
  override readonly name = 'OriginalFileUnavailableError';
}

export interface OriginalFile {
  readonly format: TranscriptFormat;
  readonly text: string;
  readonly lineCount: number;
}

/**
 * The original file of a session converted from a transcript: the kept lines in their order,
 * exactly as they were (entries appended after the import have no lines and add nothing). Throws OriginalFileUnavailableError for a session that was not
 * converted, or whose lines are not all there (line N missing or held twice).
 */
export function originalFileOf(header: SessionHeader, entries: readonly SessionEntry[]): OriginalFile {
  const format = originalFormatOf(header);
  if (format === undefined) {
    throw new OriginalFileUnavailableError(
      `session ${header.id} was not converted from a Claude Code or Codex file; its original is its pi export`,
    );
  }
  const lines: OriginalLine[] = entries.flatMap((entry) => originalLinesOf(entry));
  lines.sort((left, right) => left.line - right.line);
  lines.forEach((line, index) => {
    if (line.line !== index + 1) {
      throw new OriginalFileUnavailableError(
        `session ${header.id} does not hold line ${index + 1} of its ${format} file exactly once`,
      );
    }
  });
  return { format, text: lines.map((line) => line.text).join(''), lineCount: lines.length };
}
