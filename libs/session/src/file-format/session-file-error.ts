// The closed set of problems a session file can have, with the 1-based line they were found
// on. Strict parsing throws the first one as a SessionFileError; lenient parsing records each
// skipped line with the same code and reason.

export type SessionFileProblemCode =
  /** The first line is not a session header (or the file is empty). */
  | 'missing-header'
  /** The header's `version` is newer than this engine understands. */
  | 'unsupported-version'
  /** The line is not valid JSON (or nests deeper than MAX_JSON_DEPTH). */
  | 'bad-json'
  /** The line's bytes are not UTF-8 text (files read as bytes only). */
  | 'invalid-utf8'
  /** The line is JSON but not an object, or the object breaks the entry schema. */
  | 'schema-violation'
  /** `type` names no known entry type (a second session header included). */
  | 'unknown-entry-type'
  /** An entry reuses the id of an earlier entry. */
  | 'duplicate-id'
  /** A v1 compaction's `firstKeptEntryIndex` does not point at an earlier, valid entry. */
  | 'invalid-reference';

export interface SessionFileProblem {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly code: SessionFileProblemCode;
  readonly reason: string;
}

export class SessionFileError extends Error {
  override readonly name = 'SessionFileError';
  readonly line: number;
  readonly code: SessionFileProblemCode;
  readonly reason: string;

  constructor(problem: SessionFileProblem) {
    super(`Session file line ${problem.line}: ${problem.reason} (${problem.code})`);
    this.line = problem.line;
    this.code = problem.code;
    this.reason = problem.reason;
  }
}
