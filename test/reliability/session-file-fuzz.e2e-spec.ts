// Hostile session files (issue 6, part 3): property-based fuzzing of `parseSessionFile`, of the
// import into a SQLite store and of `strata import`. Every file is either read (lenient: with
// each bad line reported) or refused with a SessionFileError / SessionImportError naming the
// line and the reason; nothing else is ever thrown, and a refused import writes nothing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { SqliteEventStore, type EventStore } from '@strata/event-store';
import { verifyStream } from '@strata/integrity';
import {
  SessionImportError,
  importSessionFile,
  loadSession,
  prepareSessionImport,
} from '@strata/session-files';
import {
  SessionFileError,
  SessionImportConflictError,
  entryFieldProblems,
  headerFieldProblems,
  parseSessionFile,
  sessionStreamName,
} from '@strata/session';
import { commands } from '../../apps/cli/src/commands';
import { runCli } from '../../apps/cli/src/run-cli';
import { recordingIo } from '../../apps/cli/src/testing-io';
import { CaseCounts } from './support/case-counts';
import {
  fileBytes,
  fileText,
  hasInvalidUtf8,
  hostileSessionFileArbitrary,
  type HostileSessionFile,
} from './support/hostile-session-files';

const problemCodes = new Set([
  'invalid-utf8',
  'missing-header',
  'unsupported-version',
  'bad-json',
  'schema-violation',
  'unknown-entry-type',
  'duplicate-id',
  'invalid-reference',
]);
const PARSE_RUNS = 400;
const IMPORT_RUNS = 200;
const CLI_RUNS = 100;

const counts = new CaseCounts('session files');
let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-fuzz-files-'));
});
afterAll(() => {
  counts.report();
  rmSync(directory, { recursive: true, force: true });
});

function lineCount(text: string): number {
  return text.split('\n').length;
}

function nonBlankLines(text: string): number {
  return text.split('\n').filter((line) => line.trim() !== '').length;
}

async function headPosition(store: EventStore): Promise<bigint | null> {
  for await (const event of store.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 1 })) {
    return event.position;
  }
  return null;
}

function expectPrototypesUntouched(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype.toString.call([])).toBe('[object Array]');
}

function expectFileProblem(error: unknown, text: string): void {
  expect(error).toBeInstanceOf(SessionFileError);
  const problem = error as SessionFileError;
  expect(problem.line).toBeGreaterThanOrEqual(1);
  expect(problem.line).toBeLessThanOrEqual(lineCount(text));
  expect(problemCodes.has(problem.code)).toBe(true);
  expect(problem.reason.length).toBeGreaterThan(0);
  expect(problem.message).toContain(`line ${problem.line}`);
}

describe('parseSessionFile given hostile session files', () => {
  function strictOutcome(content: string | Buffer, text: string) {
    try {
      return parseSessionFile(content, { mode: 'strict' });
    } catch (error) {
      expectFileProblem(error, text);
      return undefined;
    }
  }

  it('strict mode reads the file or throws a SessionFileError naming a line of the file and the reason', () => {
    fc.assert(
      fc.property(hostileSessionFileArbitrary(), (file) => {
        counts.record('parseSessionFile strict', file.families);
        const text = fileText(file);
        for (const content of [text, fileBytes(file)]) {
          const parsed = strictOutcome(content, text);
          if (parsed !== undefined) {
            expect(parsed.skipped).toEqual([]);
            expect(new Set(parsed.entries.map((entry) => entry.id)).size).toBe(parsed.entries.length);
          }
        }
        if (hasInvalidUtf8(file)) expect(strictOutcome(fileBytes(file), text)).toBeUndefined();
        expectPrototypesUntouched();
      }),
      { numRuns: PARSE_RUNS },
    );
  });

  it('lenient mode keeps or reports every line after the header, and throws only for the header', () => {
    fc.assert(
      fc.property(hostileSessionFileArbitrary(), (file) => {
        counts.record('parseSessionFile lenient', file.families);
        const text = fileText(file);
        let parsed: ReturnType<typeof parseSessionFile> | undefined;
        try {
          parsed = parseSessionFile(fileBytes(file), { mode: 'lenient' });
        } catch (error) {
          expectFileProblem(error, text);
          expect(['missing-header', 'unsupported-version', 'schema-violation']).toContain(
            (error as SessionFileError).code,
          );
        }
        if (parsed !== undefined) {
          expect(parsed.entries.length + parsed.skipped.length).toBe(nonBlankLines(text) - 1);
          for (const problem of parsed.skipped) {
            expect(problemCodes.has(problem.code)).toBe(true);
            expect(problem.reason.length).toBeGreaterThan(0);
            expect(problem.line).toBeLessThanOrEqual(lineCount(text));
          }
          if (hasInvalidUtf8(file)) {
            expect(parsed.skipped.map((problem) => problem.code)).toContain('invalid-utf8');
          }
        }
        expectPrototypesUntouched();
      }),
      { numRuns: PARSE_RUNS },
    );
  });
});

describe('importing hostile session files into a SQLite store', () => {
  let store: SqliteEventStore;
  beforeAll(() => {
    store = new SqliteEventStore({ filename: join(directory, 'import.db') });
  });
  afterAll(() => store.close());

  it('stores a whole, verifiable session or refuses the file with its line and writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(hostileSessionFileArbitrary(), fc.boolean(), async (file, lenient) => {
        counts.record(lenient ? 'import lenient' : 'import strict', file.families);
        const text = fileText(file);
        const bytes = fileBytes(file);
        const before = await headPosition(store);
        try {
          const report = await importSessionFile(store, bytes, { lenient });
          const streamId = sessionStreamName(report.sessionId);
          expect((await verifyStream(store, streamId)).ok).toBe(true);
          const loaded = await loadSession(store, report.sessionId);
          expect(loaded.entries).toEqual(prepareSessionImport(bytes, { lenient }).entries);
          expect(headerFieldProblems(loaded.header)).toEqual([]);
          for (const entry of loaded.entries) {
            expect(entryFieldProblems(entry)).toEqual([]);
            if (entry.type === 'compaction' && entry.parentId !== null) {
              expect(loaded.state.isOnPathTo(entry.firstKeptEntryId, entry.parentId)).toBe(true);
            }
          }
          if (!lenient) expect(hasInvalidUtf8(file)).toBe(false);
          if (!lenient) expect(report.skipped).toEqual([]);
        } catch (error) {
          if (error instanceof SessionImportError) {
            expect(error.line).toBeGreaterThanOrEqual(0);
            expect(error.line).toBeLessThanOrEqual(lineCount(text));
            expect(error.reason.length).toBeGreaterThan(0);
          } else if (!(error instanceof SessionImportConflictError)) {
            throw error;
          }
          expect(await headPosition(store)).toBe(before);
        }
        expectPrototypesUntouched();
      }),
      { numRuns: IMPORT_RUNS },
    );
  });
});

describe('strata import given hostile session files (as bytes on disk)', () => {
  const storeFile = (): string => join(directory, 'cli.db');

  // The CLI loads a command's module on first use (and the engine's errors with it, to tell a
  // user's mistake): loaded here, so that the cases' time limit is spent on the cases.
  beforeAll(async () => {
    const io = recordingIo({}, directory);
    expect(await runCli(['import', join(directory, 'no-such-file.jsonl')], io, commands)).toBe(1);
  }, 120_000);

  async function storeHead(): Promise<bigint | null> {
    const store = new SqliteEventStore({ filename: storeFile() });
    try {
      return await headPosition(store);
    } finally {
      await store.close();
    }
  }

  async function importWithCli(file: HostileSessionFile, name: string, lenient: boolean) {
    const path = join(directory, name);
    writeFileSync(path, fileBytes(file));
    const io = recordingIo({}, directory);
    const args = ['import', path, '--store', `sqlite:${storeFile()}`, ...(lenient ? ['--lenient'] : [])];
    const code = await runCli(args, io, commands);
    return { code, path, stdout: io.out(), stderr: io.err() };
  }

  it('imports the file or exits 1 naming the file, the line and the reason, writing nothing', async () => {
    let caseNumber = 0;
    await fc.assert(
      fc.asyncProperty(hostileSessionFileArbitrary(), fc.boolean(), async (file, lenient) => {
        caseNumber += 1;
        counts.record(lenient ? 'strata import --lenient' : 'strata import', file.families);
        const before = await storeHead();
        const result = await importWithCli(file, `case-${caseNumber}.jsonl`, lenient);
        expect(result.stderr).not.toMatch(/\n\s+at /);
        if (result.code === 0) {
          expect(result.stdout).toMatch(/^\S+\n$/);
          if (hasInvalidUtf8(file)) {
            expect(lenient).toBe(true);
            expect(result.stderr).toContain('skipped: the line is not UTF-8 text (invalid-utf8)');
          }
        } else {
          expect(result.code).toBe(1);
          expect(result.stderr).toMatch(
            new RegExp(`^strata import: ${escapeRegExp(result.path)}(:\\d+)?: .+`, 'u'),
          );
          expect(await storeHead()).toBe(before);
        }
      }),
      { numRuns: CLI_RUNS },
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
