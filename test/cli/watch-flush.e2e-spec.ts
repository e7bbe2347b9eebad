// strata watch --flush-after as a real process (issue 25, item 6): a Claude Code transcript and
// a Codex rollout whose last answer has ended are stored once the file has been quiet, without a
// further line; the files then grow (a late line of the same message, a next turn) and are
// followed on, across a restart from the checkpoint, without a conflict; `strata import` of the
// finished files then finds the session stored exactly so, and into a fresh store makes the same
// entries (through an engine over HTTP as well). Without the flag, the answer still waits for
// the file's next line.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { exportSession } from '@strata/session-files';
import { sessionStreamName } from '@strata/session';
import { repositoryRoot, waitUntil } from '@strata/testing';
import { startHttpEngine, type HttpHarness } from '../http/http-harness';

jest.setTimeout(120_000);

const STRATA = join(repositoryRoot, 'bin', 'strata.js');
/** Generous for a busy 2-core machine: a step, a quiet time and an append take well under it. */
const DEADLINE_MS = 45_000;
const FLUSH_AFTER_MS = 300;

interface Watch {
  log(): string;
  stop(): Promise<number | null>;
}

function startWatch(args: readonly string[]): Watch {
  const child: ChildProcess = spawn(process.execPath, [STRATA, 'watch', ...args], {
    cwd: directory,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    log: () => log,
    async stop() {
      child.kill('SIGINT');
      return exited;
    },
  };
}

/** Runs the CLI to its end: exit code and output. */
function strata(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [STRATA, ...args], {
      cwd: directory,
      env: { ...process.env, STRATA_ANCHORS: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function waitFor(what: string, condition: () => Promise<boolean> | boolean, watch?: Watch): Promise<void> {
  return waitUntil(condition, what, {
    timeoutMs: DEADLINE_MS,
    detail: () => `watch wrote:\n${watch?.log() ?? ''}`,
  });
}

/** The ids of the entries stored for the session, in order (none while it is not stored). */
async function storedIds(storePath: string, sessionId: string): Promise<string[]> {
  const store = new SqliteEventStore({ filename: storePath });
  try {
    const text = await exportSession(store, sessionId);
    return text
      .split('\n')
      .slice(1)
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { id: string }).id);
  } catch {
    return [];
  } finally {
    await store.close();
  }
}

async function storedText(storePath: string, sessionId: string): Promise<string> {
  const store = new SqliteEventStore({ filename: storePath });
  try {
    return await exportSession(store, sessionId);
  } finally {
    await store.close();
  }
}

async function entryEventCount(storePath: string, sessionId: string): Promise<number> {
  const store = new SqliteEventStore({ filename: storePath });
  let count = 0;
  for await (const event of store.readStream(sessionStreamName(sessionId))) {
    if (event.type === 'EntryAppended') count += 1;
  }
  await store.close();
  return count;
}

const CLAUDE_SESSION = '5b1e0c2a-7f3d-4c8e-9a10-claudeflush01';

function claude(value: Record<string, unknown>, second: number): string {
  const timestamp = `2025-11-05T10:00:${String(second).padStart(2, '0')}.000Z`;
  return `${JSON.stringify({ sessionId: CLAUDE_SESSION, cwd: '/repo', version: '2.0.55', timestamp, ...value })}\n`;
}

function claudeAnswer(
  uuid: string,
  parentUuid: string,
  messageId: string,
  block: object,
  stop: string | null,
  second: number,
) {
  const message = {
    id: messageId,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [block],
  };
  return claude({ type: 'assistant', uuid, parentUuid, message: { ...message, stop_reason: stop } }, second);
}

function claudePrompt(uuid: string, parentUuid: string | null, text: string, second: number) {
  return claude({ type: 'user', uuid, parentUuid, message: { role: 'user', content: text } }, second);
}

/** A prompt and an answer in two lines (thinking, then text with the stop reason), and a hook notice. */
const claudeFirstTurn = [
  claudePrompt('u1', null, 'What does checkout return?', 0),
  claudeAnswer('a1', 'u1', 'msg_A', { type: 'thinking', thinking: 'Read it.', signature: 'sig' }, null, 1),
  claudeAnswer('a2', 'a1', 'msg_A', { type: 'text', text: 'The total, in cents.' }, 'end_turn', 2),
  claude({ type: 'system', subtype: 'stop_hook_summary', uuid: 's1', parentUuid: 'a2' }, 3),
].join('');
/** A late line of the same message, then a next turn whose answer bears no stop reason: the turn's end notice ends it. */
const claudeLater = [
  claudeAnswer('a3', 'a2', 'msg_A', { type: 'text', text: 'Rounded down.' }, 'end_turn', 4),
  claudePrompt('u2', 'a3', 'And with a coupon?', 5),
  claudeAnswer('b1', 'u2', 'msg_B', { type: 'text', text: 'The coupon is taken off first.' }, null, 6),
  claude({ type: 'system', subtype: 'turn_duration', uuid: 's2', parentUuid: 'b1', durationMs: 1200 }, 7),
].join('');

const CODEX_SESSION = '0199aa00-codex-flush-0001';

function codex(type: string, payload: Record<string, unknown>, second: number): string {
  return `${JSON.stringify({ timestamp: `2025-10-20T08:30:${String(second).padStart(2, '0')}.000Z`, type, payload })}\n`;
}

function codexTurn(question: string, answer: string, second: number): string {
  return [
    codex('turn_context', { cwd: '/w', model: 'gpt-5', effort: 'high' }, second),
    codex(
      'response_item',
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: question }] },
      second,
    ),
    codex(
      'response_item',
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Think.' }] },
      second + 1,
    ),
    codex(
      'response_item',
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }] },
      second + 1,
    ),
    codex('event_msg', { type: 'agent_message', message: answer }, second + 1),
    codex('event_msg', { type: 'token_count', info: null }, second + 1),
    codex('event_msg', { type: 'task_complete', last_agent_message: answer }, second + 2),
  ].join('');
}

const codexMeta = codex(
  'session_meta',
  { id: CODEX_SESSION, timestamp: '2025-10-20T08:30:00.000Z', cwd: '/w' },
  0,
);

/** The entry id the Codex converter gives the answer of a turn written by codexTurn at `firstLine`. */
const codexAnswerId = (firstLine: number) => `line-${firstLine + 2}`;

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-watch-flush-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

/** Imports the finished file into the watched store (nothing to add) and into a fresh one (the same entries). */
async function expectImportsAgree(file: string, storePath: string, sessionId: string) {
  const watched = await storedText(storePath, sessionId);
  const again = await strata('import', file, '--store', `sqlite:${storePath}`, '--json');
  expect(again.stderr).not.toMatch(/differs/);
  expect(again.code).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({ sessionId, outcome: 'unchanged' });
  const entries = watched.split('\n').filter((line) => line !== '').length - 1;
  expect(await entryEventCount(storePath, sessionId)).toBe(entries);

  const freshPath = join(directory, 'fresh.db');
  const fresh = await strata('import', file, '--store', `sqlite:${freshPath}`, '--json');
  expect(fresh.code).toBe(0);
  expect(await storedText(freshPath, sessionId)).toBe(watched);
}

describe('strata watch --flush-after', () => {
  it('stores an ended Claude Code answer once the file is quiet, follows on across a restart, and agrees with the import', async () => {
    const folder = join(directory, 'projects');
    mkdirSync(folder);
    const file = join(folder, `${CLAUDE_SESSION}.jsonl`);
    const storePath = join(directory, 'strata.db');
    const checkpoint = join(directory, 'watch.json');
    const args = [folder, '--store', `sqlite:${storePath}`, '--checkpoint', checkpoint];
    writeFileSync(file, claudeFirstTurn);

    let watch = startWatch([...args, '--flush-after', String(FLUSH_AFTER_MS)]);
    try {
      // no line follows the answer: only the quiet time can release it (and the notice behind it)
      await waitFor(
        'the answer stored without a next line',
        async () => (await storedIds(storePath, CLAUDE_SESSION)).includes('s1'),
        watch,
      );
      expect(await storedIds(storePath, CLAUDE_SESSION)).toEqual(['u1', 'a1', 's1']);
    } finally {
      expect(await watch.stop()).toBe(0);
    }

    // started again from the checkpoint, which counts the entries released
    watch = startWatch([...args, '--flush-after', String(FLUSH_AFTER_MS)]);
    try {
      await waitFor(
        'watch to follow the file again',
        () => watch.log().includes(`following ${file} from byte`),
        watch,
      );
      appendFileSync(file, claudeLater);
      await waitFor(
        'the next turn stored',
        async () => (await storedIds(storePath, CLAUDE_SESSION)).includes('s2'),
        watch,
      );
    } finally {
      expect(await watch.stop()).toBe(0);
    }
    expect(watch.log()).toContain(
      `following ${file} from byte ${Buffer.byteLength(claudeFirstTurn)} (3 entries stored)`,
    );
    expect(watch.log()).not.toMatch(/differs|rewritten|not read again/);
    expect(await storedIds(storePath, CLAUDE_SESSION)).toEqual(['u1', 'a1', 's1', 'a3', 'u2', 'b1', 's2']);
    expect(JSON.parse(readFileSync(checkpoint, 'utf8'))).toMatchObject({
      files: { [file]: { offset: Buffer.byteLength(claudeFirstTurn + claudeLater), entryCount: 7 } },
    });

    await expectImportsAgree(file, storePath, CLAUDE_SESSION);
  });

  it('stores a Codex answer once its turn ended and the file is quiet, follows the next turn, and agrees with the import', async () => {
    const folder = join(directory, 'sessions');
    mkdirSync(folder);
    const file = join(folder, 'rollout-2025-10-20T08-30-00-flush.jsonl');
    const storePath = join(directory, 'strata.db');
    const firstTurn = codexTurn('Run the tests.', 'All 14 pass.', 1);
    writeFileSync(file, codexMeta + firstTurn);

    const watch = startWatch([
      folder,
      '--store',
      `sqlite:${storePath}`,
      '--flush-after',
      String(FLUSH_AFTER_MS),
    ]);
    try {
      await waitFor(
        'the first answer stored',
        async () => (await storedIds(storePath, CODEX_SESSION)).includes(codexAnswerId(2)),
        watch,
      );
      appendFileSync(file, codexTurn('And the linter?', 'No findings.', 10));
      await waitFor(
        'the second answer stored',
        async () => (await storedIds(storePath, CODEX_SESSION)).includes(codexAnswerId(9)),
        watch,
      );
    } finally {
      expect(await watch.stop()).toBe(0);
    }
    expect(watch.log()).not.toMatch(/differs|rewritten|not read again/);
    // every line of both turns made its entries (the first turn context two): nothing is held back
    expect(await storedIds(storePath, CODEX_SESSION)).toHaveLength(14);

    await expectImportsAgree(file, storePath, CODEX_SESSION);
  });

  it.each(['0', '99', '3600001', '2s', '1e3', '-500', ''])(
    'refuses --flush-after %j with exit 2',
    async (value) => {
      const refused = await strata('watch', directory, '--store', 'memory:', `--flush-after=${value}`);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `--flush-after must be a whole number of milliseconds from 100 to 3600000, not '${value}'`,
      );
    },
  );
});

describe('strata watch --flush-after through an engine over HTTP', () => {
  let engine: HttpHarness;
  const key = 'watch-flush-key-0123456789abcdef';
  beforeAll(async () => {
    engine = await startHttpEngine({ environment: { STRATA_API_KEYS: `acme:watcher:${key}` } });
  });
  afterAll(() => engine.close());

  it('stores the ended Codex answer of a quiet file through the engine, whose import of the finished file agrees', async () => {
    const folder = join(directory, 'sessions');
    mkdirSync(folder);
    const file = join(folder, 'rollout-2025-10-20T08-30-00-http.jsonl');
    writeFileSync(file, codexMeta + codexTurn('Run the tests.', 'All 14 pass.', 1));
    const ids = async () => {
      const listed = await engine.request('GET', `/sessions/${CODEX_SESSION}/entries?limit=100`, { key });
      const items = (listed.body as { items?: { id: string }[] } | undefined)?.items ?? [];
      return listed.status === 200 ? items.map((entry) => entry.id) : [];
    };
    const watch = startWatch([
      folder,
      '--url',
      engine.url,
      '--api-key',
      key,
      '--flush-after',
      String(FLUSH_AFTER_MS),
    ]);
    try {
      await waitFor(
        'the answer stored through the engine',
        async () => (await ids()).includes(codexAnswerId(2)),
        watch,
      );
      appendFileSync(file, codexTurn('And the linter?', 'No findings.', 10));
      await waitFor('the next answer stored', async () => (await ids()).includes(codexAnswerId(9)), watch);
    } finally {
      expect(await watch.stop()).toBe(0);
    }
    expect(watch.log()).not.toMatch(/differs|refused|not read again/);
    const again = await engine.request('POST', '/sessions/import?format=codex', {
      key,
      rawBody: readFileSync(file, 'utf8'),
      contentType: 'application/x-ndjson',
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ sessionId: CODEX_SESSION, outcome: 'unchanged' });
    expect(await ids()).toHaveLength(14);
  });
});

describe('strata watch without --flush-after', () => {
  it("holds an ended Claude Code answer back until the file's next line", async () => {
    const folder = join(directory, 'projects');
    mkdirSync(folder);
    const file = join(folder, `${CLAUDE_SESSION}.jsonl`);
    const storePath = join(directory, 'strata.db');
    const checkpoint = join(directory, 'watch.json');
    writeFileSync(file, claudeFirstTurn);

    const watch = startWatch([folder, '--store', `sqlite:${storePath}`, '--checkpoint', checkpoint]);
    try {
      // the checkpoint says when every line was read: the prompt stored, the answer held back
      await waitFor(
        'every line read',
        () => {
          try {
            const files = (
              JSON.parse(readFileSync(checkpoint, 'utf8')) as { files: Record<string, { offset: number }> }
            ).files;
            return files[file]?.offset === Buffer.byteLength(claudeFirstTurn);
          } catch {
            return false;
          }
        },
        watch,
      );
      expect(await storedIds(storePath, CLAUDE_SESSION)).toEqual(['u1']);
      appendFileSync(file, claudePrompt('u2', 'a2', 'Thanks.', 9));
      await waitFor(
        'the answer stored once a line follows it',
        async () => (await storedIds(storePath, CLAUDE_SESSION)).length === 4,
        watch,
      );
    } finally {
      expect(await watch.stop()).toBe(0);
    }
    expect(await storedIds(storePath, CLAUDE_SESSION)).toEqual(['u1', 'a1', 's1', 'u2']);
  });
});
