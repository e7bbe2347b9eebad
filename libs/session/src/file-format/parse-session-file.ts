// Reading a pi session file (JSONL, versions 1 to 3) into a v3 header and entries. Every line
// is checked against the entry schemas after migration. Strict mode stops at the first
// problem with a SessionFileError; lenient mode skips the offending line and reports it.
import type { z } from 'zod';
import {
  CURRENT_SESSION_VERSION,
  sessionEntrySchema,
  sessionEntryTypes,
  sessionHeaderSchema,
  type SessionEntry,
  type SessionHeader,
} from '../entries/entries';
import {
  isJsonObject,
  readJsonLines,
  withKey,
  type JsonLine,
  type JsonObject,
  type SessionFileContent,
} from './json-lines';
import { legacyEntryId } from './legacy-entry-ids';
import {
  migrateHeader,
  migrateV1EntryFields,
  migrateV2EntryToV3,
  withEntryIdentity,
} from './migrate-entries';
import { SessionFileError, type SessionFileProblem } from './session-file-error';

export type { SessionFileContent } from './json-lines';
export type SessionFileVersion = 1 | 2 | 3;
export type SessionFileParseMode = 'strict' | 'lenient';

export interface ParseSessionFileOptions {
  readonly mode: SessionFileParseMode;
  /**
   * Session id to use when the header has none (for instance the id from the file name).
   * Without it, a header lacking an id is an error in both modes.
   */
  readonly sessionIdFallback?: string;
}

export interface ParsedSessionFile {
  /** The header at version 3, every other field kept. */
  readonly header: SessionHeader;
  /** Entries in file order, at version 3. */
  readonly entries: readonly SessionEntry[];
  readonly sourceVersion: SessionFileVersion;
  /** Whether a migration ran (the source was older than version 3). */
  readonly migrated: boolean;
  /** Lines left out in lenient mode (always empty in strict mode). */
  readonly skipped: readonly SessionFileProblem[];
}

interface EntryCandidate {
  readonly line: number;
  readonly fileIndex: number;
  readonly raw: JsonObject;
}

type Validation<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

const knownEntryTypes = new Set<string>(sessionEntryTypes);

/**
 * Validates `value` with `schema`. On success the input object itself is returned: the schemas
 * have no defaults or transforms, so it equals zod's output and keeps the file's key order.
 */
function validate<T>(schema: z.ZodType<T>, value: unknown): Validation<T> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: value as T };
  const [first] = result.error.issues;
  const location = first && first.path.length > 0 ? first.path.map(String).join('.') : '(root)';
  const more = result.error.issues.length > 1 ? ` (+${result.error.issues.length - 1} more)` : '';
  return { ok: false, reason: `schema violation at ${location}: ${first?.message ?? 'invalid'}${more}` };
}

class ProblemLog {
  readonly skipped: SessionFileProblem[] = [];
  constructor(private readonly mode: SessionFileParseMode) {}

  /** Throws in strict mode; records the skipped line in lenient mode. */
  report(problem: SessionFileProblem): void {
    if (this.mode === 'strict') throw new SessionFileError(problem);
    this.skipped.push(problem);
  }
}

function readHeader(
  lines: readonly JsonLine[],
  problems: ProblemLog,
  sessionIdFallback: string | undefined,
): { header: SessionHeader; sourceVersion: SessionFileVersion; position: number } {
  const position = lines.findIndex((line) => line.kind === 'value');
  lines.slice(0, position === -1 ? lines.length : position).forEach((line) => {
    if (line.kind === 'bad-json') problems.report({ line: line.line, code: line.code, reason: line.reason });
  });
  const headerLine = lines[position];
  if (headerLine?.kind !== 'value') {
    throw new SessionFileError({
      line: 1,
      code: 'missing-header',
      reason: 'the file holds no session header',
    });
  }
  const fail = (code: SessionFileProblem['code'], reason: string): never => {
    throw new SessionFileError({ line: headerLine.line, code, reason });
  };
  if (!isJsonObject(headerLine.value) || headerLine.value.type !== 'session') {
    return fail('missing-header', 'the first line must be the session header (type "session")');
  }
  let raw = headerLine.value;
  const hasId = typeof raw.id === 'string' && raw.id.length > 0;
  if (!hasId && sessionIdFallback !== undefined) raw = withKey(raw, 'id', sessionIdFallback, 'type');
  const header = validate(sessionHeaderSchema, raw);
  if (!header.ok) return fail('schema-violation', `session header: ${header.reason}`);
  const version = header.value.version ?? 1;
  if (version !== 1 && version !== 2 && version !== 3) {
    return fail(
      'unsupported-version',
      `unsupported session version ${version} (known: 1 to ${CURRENT_SESSION_VERSION})`,
    );
  }
  const current = validate(sessionHeaderSchema, migrateHeader(raw));
  if (!current.ok) return fail('schema-violation', `session header: ${current.reason}`);
  return { header: current.value, sourceVersion: version, position };
}

function entryCandidates(lines: readonly JsonLine[], problems: ProblemLog): EntryCandidate[] {
  const candidates: EntryCandidate[] = [];
  for (const line of lines) {
    if (line.kind === 'bad-json') {
      problems.report({ line: line.line, code: line.code, reason: line.reason });
    } else if (!isJsonObject(line.value)) {
      problems.report({
        line: line.line,
        code: 'schema-violation',
        reason: 'an entry must be a JSON object',
      });
    } else if (typeof line.value.type !== 'string') {
      problems.report({
        line: line.line,
        code: 'schema-violation',
        reason: 'schema violation at type: missing',
      });
    } else if (!knownEntryTypes.has(line.value.type)) {
      const what = line.value.type === 'session' ? 'a second session header' : `"${line.value.type}"`;
      problems.report({ line: line.line, code: 'unknown-entry-type', reason: `unknown entry type ${what}` });
    } else {
      candidates.push({ line: line.line, fileIndex: line.fileIndex, raw: line.value });
    }
  }
  return candidates;
}

/**
 * Turns entry lines, in file order, into v3 entries: v1 ids and parents (an id depends on the
 * session id and the entry's file index only), the v2 → v3 role rename, the schemas, and unique
 * ids. Reads one line at a time, so a file being followed is read as a whole file is.
 */
class PiEntryReader {
  private readonly seenIds = new Set<string>();
  private readonly legacyIdsByIndex = new Map<number, string>();
  private readonly takenLegacyIds = new Set<string>();
  private previousId: string | null = null;

  constructor(
    private readonly header: SessionHeader,
    private readonly sourceVersion: SessionFileVersion,
    private readonly problems: ProblemLog,
  ) {}

  /** The entry of a candidate line, or undefined when the line is left out (lenient). */
  read(candidate: EntryCandidate): SessionEntry | undefined {
    let raw = candidate.raw;
    if (this.sourceVersion === 1) {
      const id = legacyEntryId(this.header.id, candidate.fileIndex, this.takenLegacyIds);
      this.takenLegacyIds.add(id);
      this.legacyIdsByIndex.set(candidate.fileIndex, id);
      const acceptedIdAt = (fileIndex: number): string | undefined => {
        const earlier = this.legacyIdsByIndex.get(fileIndex);
        return earlier !== undefined && this.seenIds.has(earlier) ? earlier : undefined;
      };
      const fields = migrateV1EntryFields(raw, acceptedIdAt);
      if (!fields.ok) {
        this.problems.report({ line: candidate.line, code: fields.code, reason: fields.reason });
        return undefined;
      }
      raw = withEntryIdentity(fields.value, id, this.previousId);
    }
    if (this.sourceVersion < 3) raw = migrateV2EntryToV3(raw);
    const entry = validate(sessionEntrySchema, raw);
    if (!entry.ok) {
      this.problems.report({ line: candidate.line, code: 'schema-violation', reason: entry.reason });
      return undefined;
    }
    if (this.seenIds.has(entry.value.id)) {
      this.problems.report({
        line: candidate.line,
        code: 'duplicate-id',
        reason: `duplicate entry id ${entry.value.id}`,
      });
      return undefined;
    }
    this.seenIds.add(entry.value.id);
    this.previousId = entry.value.id;
    return entry.value;
  }
}

/** Reads a session file given as text, or as bytes (then a line that is not UTF-8 is a problem). */
export function parseSessionFile(
  content: SessionFileContent,
  options: ParseSessionFileOptions,
): ParsedSessionFile {
  const problems = new ProblemLog(options.mode);
  const lines = readJsonLines(content);
  const { header, sourceVersion, position } = readHeader(lines, problems, options.sessionIdFallback);
  const reader = new PiEntryReader(header, sourceVersion, problems);
  const entries: SessionEntry[] = [];
  for (const candidate of entryCandidates(lines.slice(position + 1), problems)) {
    const entry = reader.read(candidate);
    if (entry !== undefined) entries.push(entry);
  }
  return { header, entries, sourceVersion, migrated: sourceVersion < 3, skipped: problems.skipped };
}

/**
 * Reads a pi session file as it is written, a batch of complete lines at a time (each with or
 * without its terminator), strictly: the first line that reads as JSON is the header; every
 * later one is an entry, migrated as `parseSessionFile` migrates it. A bad line throws a
 * SessionFileError naming it, and the reader is then spent. The same interface as the
 * transcript converters (`convert`, `header`, `linesRead`), so a follower reads any format.
 */
export class PiSessionLineReader {
  readonly format = 'pi' as const;
  private lineCount = 0;
  private fileIndex = 0;
  private sessionHeader: SessionHeader | undefined;
  private reader: PiEntryReader | undefined;
  private spent: SessionFileError | undefined;
  private readonly problems = new ProblemLog('strict');

  constructor(private readonly options: { readonly sessionIdFallback?: string } = {}) {}

  get linesRead(): number {
    return this.lineCount;
  }

  get header(): SessionHeader | undefined {
    return this.sessionHeader;
  }

  /** The entries of the next complete lines. Throws SessionFileError for a bad line. */
  convert(lines: readonly string[]): SessionEntry[] {
    if (this.spent !== undefined) throw this.spent;
    const entries: SessionEntry[] = [];
    try {
      for (const text of lines) {
        this.lineCount += 1;
        const [line] = readJsonLines(text.endsWith('\n') ? text.slice(0, -1) : text);
        if (line === undefined) continue;
        const numbered: JsonLine =
          line.kind === 'value'
            ? { ...line, line: this.lineCount, fileIndex: this.fileIndex }
            : { ...line, line: this.lineCount };
        if (line.kind === 'value') this.fileIndex += 1;
        if (this.reader === undefined) {
          const { header, sourceVersion } = readHeader(
            [numbered],
            this.problems,
            this.options.sessionIdFallback,
          );
          this.sessionHeader = header;
          this.reader = new PiEntryReader(header, sourceVersion, this.problems);
          continue;
        }
        for (const candidate of entryCandidates([numbered], this.problems)) {
          const entry = this.reader.read(candidate);
          if (entry !== undefined) entries.push(entry);
        }
      }
    } catch (error) {
      if (error instanceof SessionFileError) this.spent = error;
      throw error;
    }
    return entries;
  }

  /** A pi file's lines are entries of their own: nothing is ever held back. */
  release(): SessionEntry[] {
    return [];
  }
}
