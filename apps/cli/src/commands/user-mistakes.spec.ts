// A user's mistake is one line on stderr naming the thing, never a stack trace: an unknown
// session or entry, a bad settings file, a store that cannot be reached; exit 1 for a thing that
// is not there or not reachable, 2 for a value given wrong.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { importSessionFile } from '@strata/session-files';
import { serializeSessionFile } from '@strata/session';
import { freeLoopbackPort, session } from '@strata/testing';
import { runCli } from '../run-cli';
import { recordingIo } from '../testing-io';
import { commands } from '.';

const builder = session();
builder.editTurns(2);
const sessionId = builder.header.id;

function expectOneLine(stderr: string, ...named: string[]): void {
  expect(stderr).not.toContain('    at ');
  expect(stderr.split('\n')).toHaveLength(2);
  expect(stderr.endsWith('\n')).toBe(true);
  for (const thing of named) expect(stderr).toContain(thing);
}

describe('a user mistake', () => {
  let directory: string;
  let storeUrl: string;
  let unreachableStore: string;

  beforeAll(async () => {
    unreachableStore = `esdb://127.0.0.1:${await freeLoopbackPort()}?tls=false`;
  });

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'strata-cli-mistakes-'));
    storeUrl = `sqlite:${join(directory, 'store.db')}`;
    const store = new SqliteEventStore({ filename: join(directory, 'store.db') });
    await importSessionFile(store, serializeSessionFile(builder.header, builder.entries));
    await store.close();
  });

  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  async function run(...argv: string[]) {
    const io = recordingIo({}, directory);
    const code = await runCli(argv, io, commands);
    return { code, stderr: io.err() };
  }

  it.each([['compact'], ['navigate']])('%s of an unknown session is one line, exit 1', async (name) => {
    const argv =
      name === 'compact' ? ['compact', 'no-such-session'] : ['navigate', 'no-such-session', 'e0001'];
    const { code, stderr } = await run(...argv, '--store', storeUrl);
    expect(code).toBe(1);
    expectOneLine(stderr, 'no-such-session', 'is not in the store');
  });

  it('navigate to an unknown entry is one line naming the entry and the session, exit 1', async () => {
    const { code, stderr } = await run('navigate', sessionId, 'no-such-entry', '--store', storeUrl);
    expect(code).toBe(1);
    expectOneLine(stderr, "entry 'no-such-entry' is not in session", sessionId);
  });

  it.each([
    ['not JSON', '{tokenizer', 'is not JSON'],
    ['a wrong value', JSON.stringify({ tokenizer: 'abacus' }), 'tokenizer'],
  ])('a settings file holding %s is one line naming the file, exit 2', async (_case, content, problem) => {
    const settings = join(directory, 'settings.json');
    writeFileSync(settings, content);
    for (const argv of [
      ['compact', sessionId],
      ['navigate', sessionId, 'e0001'],
      ['retention', '--dry-run'],
    ]) {
      const { code, stderr } = await run(...argv, '--store', storeUrl, '--settings', settings);
      expect(code).toBe(2);
      expectOneLine(stderr, `invalid settings in ${settings}`, problem);
    }
  });

  it('a settings file that is not there is one line naming it, exit 2', async () => {
    const { code, stderr } = await run(
      'compact',
      sessionId,
      '--store',
      storeUrl,
      '--settings',
      'nowhere.json',
    );
    expect(code).toBe(2);
    expectOneLine(stderr, 'nowhere.json', 'cannot be read');
  });

  it.each([
    ['compact', sessionId],
    ['navigate', sessionId, 'e0001'],
    ['erase', sessionId, '--reason', 'asked'],
    ['verify', sessionId],
    ['verify', '--all'],
    ['export', sessionId],
    ['context', '--session', sessionId],
    ['anchors', 'export'],
  ])('%s on a store that cannot be reached is one line naming the store, exit 1', async (...argv) => {
    const { code, stderr } = await run(...argv, '--store', unreachableStore);
    expect(code).toBe(1);
    expectOneLine(stderr, `cannot reach the store ${unreachableStore}`);
  });

  it('an EventStoreDB URL with credentials is named without them', async () => {
    const withCredentials = unreachableStore.replace('//', '//admin:secret@');
    const { code, stderr } = await run('compact', sessionId, '--store', withCredentials);
    expect(code).toBe(1);
    expectOneLine(stderr, 'esdb://***@127.0.0.1');
    expect(stderr).not.toContain('secret');
  });
});
