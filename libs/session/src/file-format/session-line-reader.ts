// The per-format adapter a follower of session files (strata watch) reads lines through: pi's
// own reader, or the Claude Code and Codex converters. Each takes the complete lines of one
// file in order, a batch at a time, keeps whatever it needs of the lines before, and returns the
// entries the batch completes; a converter may hold an entry back until a later line ends it.
import type { SessionEntry, SessionHeader } from '../entries/entries';
import { isJsonObject } from './json-lines';
import { PiSessionLineReader } from './parse-session-file';
import { createTranscriptConverter, detectSessionFileFormat, DETECTION_LINES } from './transcripts';
import type { SessionFileFormat } from './transcripts';

/** Turns the lines of one session file, in order, into session entries. */
export interface SessionLineReader {
  readonly format: SessionFileFormat;
  /** Lines read so far: the next line given is line `linesRead + 1` of the file. */
  readonly linesRead: number;
  /** The session header, once the lines have named the session. */
  readonly header: SessionHeader | undefined;
  /**
   * The entries of the next complete lines (each with its terminator), in an order where each
   * parent comes first. Throws SessionFileError naming a bad line; the reader is then spent.
   */
  convert(lines: readonly string[]): SessionEntry[];
  /**
   * The entries held back that no later line can change (see TranscriptConverter.release);
   * a pi file holds nothing back, so its reader returns none.
   */
  release(): SessionEntry[];
}

export interface SessionLineReaderOptions {
  /** The session id when the lines name none (for instance from the file name). */
  readonly sessionIdFallback?: string;
}

/** The line reader of a format. */
export function createSessionLineReader(
  format: SessionFileFormat,
  options: SessionLineReaderOptions = {},
): SessionLineReader {
  return format === 'pi' ? new PiSessionLineReader(options) : createTranscriptConverter(format, options);
}

/**
 * The format of a file being written, from its first complete lines, or undefined while they
 * cannot tell yet: a pi file starts with its header; a file whose first lines have neither it
 * nor a Claude Code or Codex shape is read as pi once DETECTION_LINES lines are there.
 */
export function detectFollowedFormat(lines: readonly string[]): SessionFileFormat | undefined {
  const values = lines.flatMap((line) => {
    try {
      const value: unknown = JSON.parse(line);
      return isJsonObject(value) ? [value] : [];
    } catch {
      return [];
    }
  });
  if (values.length === 0 && lines.length < DETECTION_LINES) return undefined;
  const format = detectSessionFileFormat(lines.join(''));
  if (format === 'pi' && values[0]?.type !== 'session' && lines.length < DETECTION_LINES) return undefined;
  return format;
}
