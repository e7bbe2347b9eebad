import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSessionContext, parseSessionFile, serializeSessionFile } from '@strata/session';
import { describeWithFixture, session } from '@strata/testing';
import { runCli } from '../run-cli';
import { recordingIo, type RecordingIo } from '../testing-io';
import { commands } from '.';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-store-cli-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

async function strata(
  args: string[],
  env: Record<string, string> = {},
): Promise<RecordingIo & { code: number }> {
  const io = recordingIo(env, directory);
  const code = await runCli(args, io, commands);
  return Object.assign(io, { code });
}

function writeFile(name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

const builder = session({ sessionId: 'cli-session-1' })
  .user('List the files')
  .assistantToolCalls([{ name: 'bash', arguments: { command: 'ls' } }])
  .toolResult('bash', 'README.md\npackage.json')
  .assistant('Two files.');
const sessionText = serializeSessionFile(builder.header, builder.entries);

describe('strata import and export', () => {
  describe('given a session file and an empty SQLite store', () => {
    it('imports it, prints the session id, and exports the same file', async () => {
      const file = writeFile('session.jsonl', sessionText);
      const store = `sqlite:${join(directory, 'strata.db')}`;
      const imported = await strata(['import', file, '--store', store]);
      expect(imported.code).toBe(0);
      expect(imported.out()).toBe('cli-session-1\n');
      expect(imported.err()).toContain('imported as session-cli-session-1 (5 events)');
      const exported = await strata(['export', 'cli-session-1', '--store', store]);
      expect(exported.code).toBe(0);
      expect(exported.out()).toBe(sessionText);
    });

    it('with --json prints one JSON object per file: the file, the session, the outcome and the counts', async () => {
      const file = writeFile('session.jsonl', sessionText);
      const store = `sqlite:${join(directory, 'strata.db')}`;
      const first = await strata(['import', file, '--store', store, '--json']);
      expect(first.code).toBe(0);
      expect(JSON.parse(first.out())).toMatchObject({
        file,
        sessionId: 'cli-session-1',
        streamId: 'session-cli-session-1',
        outcome: 'imported',
        entryCount: 4,
        eventsWritten: 5,
        revision: 4,
      });
      const again = await strata(['import', file, '--store', store, '--json']);
      expect(JSON.parse(again.out())).toMatchObject({ outcome: 'unchanged', eventsWritten: 0 });
    });

    it('with several files tells on stderr each one read and checked before writing any', async () => {
      const first = writeFile('first.jsonl', sessionText);
      const other = session({ sessionId: 'cli-session-2' }).user('Hello').assistant('Hi.');
      const second = writeFile('second.jsonl', serializeSessionFile(other.header, other.entries));
      const imported = await strata([
        'import',
        first,
        second,
        '--store',
        `sqlite:${join(directory, 'strata.db')}`,
      ]);
      expect(imported.code).toBe(0);
      const lines = imported.err().split('\n');
      const checked = [
        `import: 1 of 2 files read and checked (${first})`,
        `import: 2 of 2 files read and checked (${second})`,
      ];
      expect(lines.slice(0, 2)).toEqual(checked);
      expect(lines.findIndex((line) => line.includes('imported as'))).toBeGreaterThan(1);
    });

    it('uses STRATA_STORE when no --store is given, and sqlite:./data/strata.db without either', async () => {
      const file = writeFile('session.jsonl', sessionText);
      await strata(['import', file], { STRATA_STORE: 'sqlite:./elsewhere.db' });
      expect((await strata(['export', 'cli-session-1', '--store', 'sqlite:elsewhere.db'])).code).toBe(0);
      await strata(['import', file]);
      expect((await strata(['export', 'cli-session-1', '--store', 'sqlite:data/strata.db'])).code).toBe(0);
    });

    it('reports a second import of the same file as unchanged', async () => {
      const file = writeFile('session.jsonl', sessionText);
      await strata(['import', file]);
      const again = await strata(['import', file]);
      expect(again.code).toBe(0);
      expect(again.out()).toBe('cli-session-1\n');
      expect(again.err()).toContain('unchanged');
    });
  });

  describe('given a pi 0.73.1 file with extension summaries and a pi model change (issue 13, item 10)', () => {
    const piBuilder = session({ sessionId: 'cli-pi-extension' })
      .user('List the files')
      .assistant('Two files.')
      .piModelChange('openai', 'gpt-5.1-codex')
      .compaction({
        firstKeptEntryId: 'e0002',
        tokensBefore: 40,
        details: { artifactIndex: [{ id: 1 }], readFiles: 'see artifacts' },
        fromHook: true,
      });
    piBuilder.branchSummary('e0001', 'From an extension', { details: ['free', 'form'], fromHook: true });
    const piText = serializeSessionFile(piBuilder.header, piBuilder.entries);

    it('imports it strictly and exports it unchanged', async () => {
      const file = writeFile('pi.jsonl', piText);
      const imported = await strata(['import', file]);
      expect(imported.err()).not.toContain('schema violation');
      expect(imported.code).toBe(0);
      const exported = await strata(['export', 'cli-pi-extension']);
      expect(exported.out()).toBe(piText);
    });
  });

  describe('given several files, one with a bad line', () => {
    it('names the file and line, exits 1 and imports none of them', async () => {
      const good = writeFile('good.jsonl', sessionText);
      const bad = writeFile('bad.jsonl', sessionText.replace('cli-session-1', 'cli-session-2') + '{oops\n');
      const result = await strata(['import', good, bad]);
      expect(result.code).toBe(1);
      expect(result.err()).toMatch(new RegExp(`${bad}:6: .*bad-json.*nothing was imported`));
      expect(result.out()).toBe('');
      const exported = await strata(['export', 'cli-session-1']);
      expect(exported.code).toBe(1);
      expect(exported.err()).toContain('session cli-session-1 is not in the store');
    });

    it('skips and reports the line with --lenient', async () => {
      const bad = writeFile('bad.jsonl', sessionText + '{oops\n');
      const result = await strata(['import', bad, '--lenient']);
      expect(result.code).toBe(0);
      expect(result.err()).toContain(`${bad}:6: skipped: invalid JSON`);
      expect(result.out()).toBe('cli-session-1\n');
    });
  });

  describe('given a stored session with different content under the same id', () => {
    it('refuses the import with a conflict and exits 1', async () => {
      await strata(['import', writeFile('a.jsonl', sessionText)]);
      const changed = writeFile('b.jsonl', sessionText.replace('Two files.', 'Three files.'));
      const result = await strata(['import', changed]);
      expect(result.code).toBe(1);
      const differing = builder.entries[3]!.id;
      expect(result.err()).toContain(
        `already stored with different content: line 5 (entry 4) differs: ${differing} in the file, ${differing} stored`,
      );
    });
  });

  describe('given a stored session whose file grew since (issue 15, item 1)', () => {
    const firstPart = serializeSessionFile(builder.header, builder.entries.slice(0, 2));

    it('appends the new entries, says how many, and exports the grown file', async () => {
      const file = writeFile('session.jsonl', firstPart);
      expect((await strata(['import', file])).code).toBe(0);
      writeFileSync(file, sessionText);
      const synced = await strata(['import', file]);
      expect(synced.code).toBe(0);
      expect(synced.out()).toBe('cli-session-1\n');
      expect(synced.err()).toContain('appended: 2 new entries to session-cli-session-1 (4 in all)');
      expect((await strata(['export', 'cli-session-1'])).out()).toBe(sessionText);
      expect((await strata(['import', file])).err()).toContain('unchanged');
    });

    it('exits 1 naming the line when the grown file changed an entry already stored, and appends nothing', async () => {
      const file = writeFile('session.jsonl', firstPart);
      await strata(['import', file]);
      const secondId = builder.entries[1]!.id;
      writeFileSync(file, sessionText.replace('"command":"ls"', '"command":"ls -la"'));
      const result = await strata(['import', file]);
      expect(result.code).toBe(1);
      expect(result.err()).toContain(`line 3 (entry 2) differs: ${secondId} in the file, ${secondId} stored`);
      expect((await strata(['export', 'cli-session-1'])).out()).toBe(firstPart);
    });
  });

  it('rejects usage errors: no file, an unknown store scheme, two session ids', async () => {
    expect((await strata(['import'])).code).toBe(2);
    const badStore = await strata(['import', writeFile('s.jsonl', sessionText), '--store', 'mysql://x']);
    expect(badStore.code).toBe(2);
    expect(badStore.err()).toContain("invalid store URL 'mysql://x': unknown scheme 'mysql:'");
    expect((await strata(['export', 'a', 'b'])).code).toBe(2);
    const missing = await strata(['import', join(directory, 'missing.jsonl')]);
    expect(missing.code).toBe(1);
    expect(missing.err()).toContain('no such file');
  });
});

describe('strata context --session', () => {
  it('prints the same JSON as --file for the same session and leaf', async () => {
    const file = writeFile('session.jsonl', sessionText);
    await strata(['import', file]);
    for (const leaf of [[], ['--leaf', builder.entries[1]!.id]]) {
      const fromFile = await strata(['context', '--file', file, '--json', '--tokenizer', 'chars4', ...leaf]);
      const fromStore = await strata([
        'context',
        '--session',
        'cli-session-1',
        '--json',
        '--tokenizer',
        'chars4',
        ...leaf,
      ]);
      expect(fromStore.code).toBe(0);
      expect(fromStore.out()).toBe(fromFile.out());
    }
  });

  it('insists on exactly one of --file and --session, and --store only with --session', async () => {
    expect((await strata(['context'])).err()).toContain('--file or --session is required');
    const both = await strata(['context', '--file', 'x', '--session', 'y']);
    expect(both.code).toBe(2);
    expect(both.err()).toContain('not both');
    expect((await strata(['context', '--file', 'x', '--store', 'memory:'])).err()).toContain(
      '--store applies to --session only',
    );
  });

  it('names an unknown session and an unknown leaf', async () => {
    await strata(['import', writeFile('session.jsonl', sessionText)]);
    const unknownSession = await strata(['context', '--session', 'nope']);
    expect(unknownSession.code).toBe(1);
    expect(unknownSession.err()).toContain('session nope is not in the store');
    const unknownLeaf = await strata(['context', '--session', 'cli-session-1', '--leaf', 'nope']);
    expect(unknownLeaf.code).toBe(1);
    expect(unknownLeaf.err()).toContain("entry 'nope' is not in session cli-session-1");
  });
});

for (const fixtureName of ['before-compaction.jsonl', 'large-session.jsonl']) {
  describeWithFixture(fixtureName, `import, export and context of ${fixtureName}`, (fixture) => {
    it('exports the migrated file, re-imports as a no-op, and gives the same context entry for entry', async () => {
      const parsed = parseSessionFile(readFileSync(fixture, 'utf8'), { mode: 'strict' });
      const sessionId = parsed.header.id;
      const imported = await strata(['import', fixture]);
      expect(imported.out()).toBe(`${sessionId}\n`);
      expect(imported.err()).toContain(`(${parsed.entries.length + 1} events)`);

      const exported = await strata(['export', sessionId]);
      expect(exported.out()).toBe(serializeSessionFile(parsed.header, parsed.entries));

      const again = await strata(['import', fixture]);
      expect(again.err()).toContain('unchanged');

      const exportedFile = writeFile('exported.jsonl', exported.out());
      const leaves = [undefined, parsed.entries[Math.floor(parsed.entries.length / 2)]!.id];
      for (const leaf of leaves) {
        const leafArgs = leaf === undefined ? [] : ['--leaf', leaf];
        const original = await strata([
          'context',
          '--file',
          fixture,
          '--json',
          '--tokenizer',
          'chars4',
          ...leafArgs,
        ]);
        const stored = await strata([
          'context',
          '--session',
          sessionId,
          '--json',
          '--tokenizer',
          'chars4',
          ...leafArgs,
        ]);
        const roundTripped = await strata([
          'context',
          '--file',
          exportedFile,
          '--json',
          '--tokenizer',
          'chars4',
          ...leafArgs,
        ]);
        const originalMessages = JSON.parse(
          JSON.stringify(buildSessionContext(parsed.entries, leaf).messages),
        ) as unknown[];
        const storedMessages = (JSON.parse(stored.out()) as { messages: unknown[] }).messages;
        expect(storedMessages).toHaveLength(originalMessages.length);
        storedMessages.forEach((message, index) => expect(message).toEqual(originalMessages[index]));
        expect(stored.out()).toBe(original.out());
        expect(roundTripped.out()).toBe(original.out());
      }
    });
  });
}
