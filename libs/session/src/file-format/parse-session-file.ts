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

/** v1 ids for every candidate, keyed by file index, assigned in file order. */
function legacyIds(candidates: readonly EntryCandidate[], sessionId: string): Map<number, string> {
  const taken = new Set<string>();
  const ids = new Map<number, string>();
  for (const candidate of candidates) {
    const id = legacyEntryId(sessionId, candidate.fileIndex, taken);
    taken.add(id);
    ids.set(candidate.fileIndex, id);
  }
  return ids;
}

/** Reads a session file given as text, or as bytes (then a line that is not UTF-8 is a problem). */
export function parseSessionFile(
  content: SessionFileContent,
  options: ParseSessionFileOptions,
): ParsedSessionFile {
  const problems = new ProblemLog(options.mode);
  const lines = readJsonLines(content);
  const { header, sourceVersion, position } = readHeader(lines, problems, options.sessionIdFallback);
  const candidates = entryCandidates(lines.slice(position + 1), problems);
  const ids = sourceVersion === 1 ? legacyIds(candidates, header.id) : undefined;

  const entries: SessionEntry[] = [];
  const seenIds = new Set<string>();
  let previousId: string | null = null;
  for (const candidate of candidates) {
    let raw = candidate.raw;
    if (ids) {
      const acceptedIdAt = (fileIndex: number): string | undefined => {
        const id = ids.get(fileIndex);
        return id !== undefined && seenIds.has(id) ? id : undefined;
      };
      const fields = migrateV1EntryFields(raw, acceptedIdAt);
      if (!fields.ok) {
        problems.report({ line: candidate.line, code: fields.code, reason: fields.reason });
        continue;
      }
      raw = withEntryIdentity(fields.value, ids.get(candidate.fileIndex) ?? '', previousId);
    }
    if (sourceVersion < 3) raw = migrateV2EntryToV3(raw);
    const entry = validate(sessionEntrySchema, raw);
    if (!entry.ok) {
      problems.report({ line: candidate.line, code: 'schema-violation', reason: entry.reason });
      continue;
    }
    if (seenIds.has(entry.value.id)) {
      problems.report({
        line: candidate.line,
        code: 'duplicate-id',
        reason: `duplicate entry id ${entry.value.id}`,
      });
      continue;
    }
    seenIds.add(entry.value.id);
    entries.push(entry.value);
    previousId = entry.value.id;
  }
  return { header, entries, sourceVersion, migrated: sourceVersion < 3, skipped: problems.skipped };
}
