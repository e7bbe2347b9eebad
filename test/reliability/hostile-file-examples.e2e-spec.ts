// One hand-made example per hostile family, through `strata import` (strict): the message each
// one gets, as docs/reliability.md quotes them, and nothing written to the store.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { commands } from '../../apps/cli/src/commands';
import { runCli } from '../../apps/cli/src/run-cli';
import { recordingIo } from '../../apps/cli/src/testing-io';

const header =
  '{"type":"session","version":3,"id":"example","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';
const user = (id: string, parentId: string | null, text = 'hello') =>
  JSON.stringify({
    type: 'message',
    id,
    parentId,
    timestamp: '2026-01-01T00:00:01.000Z',
    message: { role: 'user', content: text, timestamp: 1 },
  });

/** What follows the file name in the error (empty: imported); V8's JSON messages vary by version. */
type Expected = string | RegExp;

const examples: readonly { family: string; lines: readonly (string | Buffer)[]; message: Expected }[] = [
  {
    family: 'huge payload (a 30 MB line, imported whole)',
    lines: [header, user('a', null, 'x'.repeat(30_000_000))],
    message: '',
  },
  {
    family: 'deep nesting',
    lines: [
      header,
      user('a', null),
      `{"type":"custom","id":"b","parentId":"a","timestamp":"t","customType":"x","data":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
    ],
    message: ':3: JSON nested deeper than 512 levels (bad-json); nothing was imported',
  },
  {
    family: 'wrong type',
    lines: [header, JSON.stringify({ ...JSON.parse(user('a', null)), parentId: 7 })],
    message:
      ':2: schema violation at parentId: Invalid input: expected string, received number (schema-violation); nothing was imported',
  },
  {
    family: 'invalid UTF-8',
    lines: [
      header,
      user('a', null),
      Buffer.concat([
        Buffer.from(user('b', 'a').slice(0, 60)),
        Buffer.from([0xc3, 0x28]),
        Buffer.from(user('b', 'a').slice(60)),
      ]),
    ],
    message: ':3: the line is not UTF-8 text (invalid-utf8); nothing was imported',
  },
  {
    family: 'unknown entry type',
    lines: [header, JSON.stringify({ ...JSON.parse(user('a', null)), type: 'telepathy' })],
    message: ':2: unknown entry type "telepathy" (unknown-entry-type); nothing was imported',
  },
  {
    family: 'cycle in parent links',
    lines: [header, user('a', 'b'), user('b', 'a')],
    message: ':2: parent b of entry a is not an earlier entry (invalid-reference); nothing was imported',
  },
  {
    family: 'self-parent',
    lines: [header, user('a', 'a')],
    message: ':2: parent a of entry a is not an earlier entry (invalid-reference); nothing was imported',
  },
  {
    family: 'duplicate id',
    lines: [header, user('a', null), user('a', 'a')],
    message: ':3: duplicate entry id a (duplicate-id); nothing was imported',
  },
  {
    family: 'truncated line',
    lines: [header, user('a', null), user('b', 'a').slice(0, 40)],
    message:
      /^:3: invalid JSON: Unterminated string in JSON at position 40.* \(bad-json\); nothing was imported$/,
  },
  {
    family: 'second header',
    lines: [header, user('a', null), header],
    message: ':3: unknown entry type a second session header (unknown-entry-type); nothing was imported',
  },
  {
    family: 'future version',
    lines: [header.replace('"version":3', '"version":9'), user('a', null)],
    message: ':1: unsupported session version 9 (known: 1 to 3) (unsupported-version); nothing was imported',
  },
];

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-hostile-examples-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function storedEvents(storeFile: string): Promise<number> {
  const store = new SqliteEventStore({ filename: storeFile });
  let count = 0;
  for await (const _event of store.readAll()) count += 1;
  await store.close();
  return count;
}

describe('strata import given one example of each hostile family', () => {
  it.each(examples)('$family', async ({ lines, message }) => {
    const file = join(directory, 'example.jsonl');
    const storeFile = join(directory, `${Math.random().toString(36).slice(2)}.db`);
    writeFileSync(
      file,
      Buffer.concat(
        lines.flatMap((line) => [typeof line === 'string' ? Buffer.from(line) : line, Buffer.from('\n')]),
      ),
    );
    const io = recordingIo({}, directory);
    const code = await runCli(['import', file, '--store', `sqlite:${storeFile}`], io, commands);
    if (message === '') {
      expect(code).toBe(0);
      expect(io.out()).toBe('example\n');
      expect(await storedEvents(storeFile)).toBe(2);
    } else {
      const prefix = `strata import: ${file}`;
      expect(io.err().startsWith(prefix)).toBe(true);
      const rest = io.err().slice(prefix.length, -1);
      if (typeof message === 'string') expect(rest).toBe(message);
      else expect(rest).toMatch(message);
      expect(code).toBe(1);
      expect(await storedEvents(storeFile)).toBe(0);
    }
  });
});
