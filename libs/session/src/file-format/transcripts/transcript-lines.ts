// The lines of an agent's own transcript (Claude Code, Codex CLI) exactly as written: each line
// keeps its terminator ("\n", or "\r\n"; the file's last line may have none), so the lines joined
// again are the file byte for byte. A line is read as JSON only after that; a line that is not
// UTF-8, not JSON, not an object, or nested deeper than MAX_JSON_DEPTH is refused, naming it.
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json-depth';
import { isJsonObject, type JsonObject, type SessionFileContent } from '../json-lines';
import { SessionFileError } from '../session-file-error';

/** The transcript formats Strata converts into session entries. */
export const transcriptFormats = ['claude-code', 'codex'] as const;
export type TranscriptFormat = (typeof transcriptFormats)[number];

/** Every format a session file may be read in: pi's own, or an agent's transcript. */
export const sessionFileFormats = ['pi', ...transcriptFormats] as const;
export type SessionFileFormat = (typeof sessionFileFormats)[number];

export function isTranscriptFormat(value: unknown): value is TranscriptFormat {
  return value === 'claude-code' || value === 'codex';
}

/** The entry field that keeps the original lines an entry was made from. */
export const ORIGINAL_LINES_FIELD = 'originalLines';
/** The header field naming the format the session was converted from. */
export const ORIGINAL_FORMAT_FIELD = 'originalFormat';

/** One line of the original file: its 1-based number and its exact text, terminator included. */
export interface OriginalLine {
  readonly line: number;
  readonly text: string;
}

/** A line of a transcript, read: blank (only whitespace) or a JSON object. */
export interface TranscriptRecord {
  readonly line: number;
  readonly text: string;
  /** Undefined for a blank line. */
  readonly value: JsonObject | undefined;
}

const NEWLINE = 0x0a;
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The lines of a file, each with its terminator; a final newline leaves no empty line after it.
 * `firstLine` numbers the first of them (for a file read on from the middle).
 */
export function splitOriginalLines(content: SessionFileContent, firstLine = 1): string[] {
  if (typeof content === 'string') {
    const pieces = content.split(/(?<=\n)/);
    return pieces.length === 1 && pieces[0] === '' ? [] : pieces;
  }
  const lines: string[] = [];
  let start = 0;
  while (start < content.length) {
    const newline = content.indexOf(NEWLINE, start);
    const end = newline === -1 ? content.length : newline + 1;
    try {
      lines.push(strictDecoder.decode(content.subarray(start, end)));
    } catch {
      throw new SessionFileError({
        line: firstLine + lines.length,
        code: 'invalid-utf8',
        reason: 'the line is not UTF-8 text',
      });
    }
    start = end;
  }
  return lines;
}

/** Reads one line (its text with or without the terminator) as a blank line or a JSON object. */
export function readTranscriptLine(text: string, line: number): TranscriptRecord {
  const body = text.endsWith('\n') ? text.slice(0, text.endsWith('\r\n') ? -2 : -1) : text;
  if (body.trim() === '') return { line, text, value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new SessionFileError({ line, code: 'bad-json', reason: `invalid JSON: ${detail}` });
  }
  if (exceedsJsonDepth(value)) {
    throw new SessionFileError({
      line,
      code: 'bad-json',
      reason: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
    });
  }
  if (!isJsonObject(value)) {
    throw new SessionFileError({ line, code: 'schema-violation', reason: 'a line must be a JSON object' });
  }
  return { line, text, value };
}

/** A string field of a JSON object, or undefined. */
export function stringField(object: JsonObject | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** An object field of a JSON object, or undefined. */
export function objectField(object: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = object?.[key];
  return isJsonObject(value) ? value : undefined;
}

/** A finite number field of a JSON object, or undefined. */
export function numberField(object: JsonObject | undefined, key: string): number | undefined {
  const value = object?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A readable name for a line type in a custom type: short and plain, else `unknown`. */
export function lineTypeName(value: unknown): string {
  return typeof value === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(value) ? value : 'unknown';
}

/** Milliseconds since the epoch of an ISO timestamp (0 when it cannot be read), as messages hold time. */
export function timeOf(timestamp: string): number {
  const time = Date.parse(timestamp);
  return Number.isFinite(time) && time >= 0 ? time : 0;
}
