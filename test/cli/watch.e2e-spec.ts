// strata watch as a real process (issue 15, item 2): writers append pi lines in bursts of random
// sizes (lines split across writes) while it runs; the stored sessions end up equal to the
// files (`strata export` gives each file back), through a SQLite store and through an engine
// over HTTP, with 50 files at once, across a SIGKILL and a restart from the checkpoint (nothing
// doubled), and a truncated and a replaced file are reported instead of guessed at. Claude Code
// transcripts and Codex rollouts followed the same way are stored as their import stores them.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventStore, SqliteEventStore } from '@strata/event-store';
import { exportOriginalFile, exportSession, importSessionFile } from '@strata/session-files';
import {
  buildSessionContext,
  createSessionLineReader,
  parseSessionFile,
  serializeSessionFile,
  sessionStreamName,
} from '@strata/session';
import { readTranscriptSample, repositoryRoot, session, type TranscriptSampleName } from '@strata/testing';
import { startHttpEngine, type HttpHarness } from '../http/http-harness';

jest.setTimeout(120_000);

interface Watch {
  readonly child: ChildProcess;
  log(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function startWatch(args: readonly string[]): Watch {
  const child = spawn(process.execPath, [join(repositoryRoot, 'bin', 'strata.js'), 'watch', ...args], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    log: () => log,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

async function waitFor(
  what: string,
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 60_000,
  watch?: Watch,
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; watch wrote:\n${watch?.log() ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A small deterministic random generator (mulberry32), so a failure can be replayed. */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function sessionText(sessionId: string, turns: number): string {
  const builder = session({ sessionId });
  for (let turn = 0; turn < turns; turn += 1) {
    builder.user(`question ${turn} ${'é'.repeat(turn % 7)}`);
    if (turn % 3 === 0) {
      builder.assistantToolCalls([{ name: 'bash', arguments: { command: `ls ${turn}` } }]);
      builder.toolResult('bash', `file-${turn}\n`.repeat(1 + (turn % 5)));
    }
    builder.assistant(`answer ${turn}`);
  }
  return serializeSessionFile(builder.header, builder.entries);
}

/** Appends `text` to `path` in bursts of 1 to 400 bytes (lines split anywhere), pausing between them. */
async function writeInBursts(
  path: string,
  content: string | Buffer,
  random: () => number,
  stopAt = Number.POSITIVE_INFINITY,
) {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  let position = 0;
  while (position < Math.min(stopAt, bytes.length)) {
    const size = 1 + Math.floor(random() * 400);
    const end = Math.min(position + size, bytes.length, stopAt);
    appendFileSync(path, bytes.subarray(position, end));
    position = end;
    // A deliberate interleaving: the watcher sees the file grow in pieces at random moments.
    if (random() < 0.5) await new Promise((resolve) => setTimeout(resolve, random() * 25));
  }
  return position;
}

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-watch-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

async function storedText(storePath: string, sessionId: string): Promise<string | undefined> {
  const store = new SqliteEventStore({ filename: storePath });
  try {
    return await exportSession(store, sessionId);
  } catch {
    return undefined;
  } finally {
    await store.close();
  }
}

async function entryEventCount(storePath: string, sessionId: string): Promise<number> {
  const store = openEventStore(`sqlite:${storePath}`);
  let count = 0;
  for await (const event of store.readStream(sessionStreamName(sessionId))) {
    if (event.type === 'EntryAppended') count += 1;
  }
  await store.close();
  return count;
}

describe('strata watch into a SQLite store', () => {
  it('stores a file written in random bursts exactly, and a new folder made while it runs', async () => {
    const folder = join(directory, 'sessions');
    mkdirSync(folder);
    const storePath = join(directory, 'strata.db');
    const watch = startWatch([
      folder,
      '--store',
      `sqlite:${storePath}`,
      '--checkpoint',
      join(directory, 'cp.json'),
    ]);
    try {
      await waitFor('watch to start', () => watch.log().includes('watching'));
      const nested = join(folder, '--home-dev-app--');
      mkdirSync(nested);
      const path = join(nested, '2026-01-01T00-00-00_burst-1.jsonl');
      const text = sessionText('burst-1', 40);
      await writeInBursts(path, text, randomFrom(1));
      await waitFor(
        'the session to equal the file',
        async () => {
          return (await storedText(storePath, 'burst-1')) === text;
        },
        20_000,
        watch,
      );
      expect(watch.log()).toContain(`following ${path}`);
    } finally {
      expect(await watch.stop('SIGINT')).toBe(0);
    }
    expect(watch.log()).toContain('checkpoint written');
    const checkpoint = JSON.parse(readFileSync(join(directory, 'cp.json'), 'utf8')) as {
      files: Record<string, { offset: number; entryCount: number }>;
    };
    expect(Object.values(checkpoint.files)).toEqual([
      expect.objectContaining({ offset: Buffer.byteLength(sessionText('burst-1', 40)) }),
    ]);
  });

  it('resumes after a SIGKILL from its checkpoint with nothing missed or doubled, across 50 files', async () => {
    const folder = join(directory, 'sessions');
    mkdirSync(folder);
    const storePath = join(directory, 'strata.db');
    const args = [folder, '--store', `sqlite:${storePath}`, '--checkpoint', join(directory, 'cp.json')];
    const files = Array.from({ length: 50 }, (_, index) => ({
      sessionId: `many-${index}`,
      path: join(folder, `${index % 5}`, `many-${index}.jsonl`),
      text: sessionText(`many-${index}`, 6 + (index % 7)),
    }));
    for (const file of files) mkdirSync(join(file.path, '..'), { recursive: true });
    const random = randomFrom(7);
    const first = startWatch(args);
    await waitFor('watch to start', () => first.log().includes('watching'));
    // each file is written up to a random point, the watcher is killed while writers go on, then restarted
    const written = await Promise.all(
      files.map((file) =>
        writeInBursts(file.path, file.text, random, Math.floor(random() * Buffer.byteLength(file.text))),
      ),
    );
    // A deliberate interleaving: the watcher is killed wherever it is in its work, a little after
    // the writers stop (some files sent, others half read); the restart must finish them all.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await first.stop('SIGKILL')).toBe(null);
    await Promise.all(
      files.map((file, index) => {
        appendFileSync(file.path, Buffer.from(file.text).subarray(written[index], written[index]! + 50));
        return Promise.resolve();
      }),
    );
    const second = startWatch(args);
    try {
      await Promise.all(
        files.map((file, index) =>
          writeInBursts(file.path, Buffer.from(file.text).subarray(written[index]! + 50), random),
        ),
      ).catch(() => undefined);
      await waitFor(
        'every session to equal its file',
        async () => {
          for (const file of files) {
            if ((await storedText(storePath, file.sessionId)) !== readFileSync(file.path, 'utf8'))
              return false;
          }
          return true;
        },
        90_000,
      );
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
    for (const file of files) {
      expect(readFileSync(file.path, 'utf8')).toBe(file.text);
      expect(await entryEventCount(storePath, file.sessionId)).toBe(file.text.split('\n').length - 2);
    }
  });

  it('reports a truncated file and a replaced one in plain words instead of guessing, stores nothing of them, and says when the truncated one is followed again', async () => {
    const folder = join(directory, 'sessions');
    mkdirSync(folder);
    const storePath = join(directory, 'strata.db');
    const truncated = join(folder, 'truncated.jsonl');
    const replaced = join(folder, 'replaced.jsonl');
    const truncatedText = sessionText('cut-1', 4);
    const replacedText = sessionText('swap-1', 4);
    writeFileSync(truncated, truncatedText);
    writeFileSync(replaced, replacedText);
    const watch = startWatch([folder, '--store', `sqlite:${storePath}`]);
    try {
      await waitFor(
        'both files stored',
        async () => {
          return (
            (await storedText(storePath, 'cut-1')) === truncatedText &&
            (await storedText(storePath, 'swap-1')) === replacedText
          );
        },
        30_000,
        watch,
      );
      writeFileSync(truncated, truncatedText.slice(0, 200));
      const other = sessionText('swap-2', 6);
      writeFileSync(`${replaced}.new`, other);
      rmSync(replaced);
      writeFileSync(replaced, other);
      await waitFor(
        'both reported',
        () =>
          watch.log().includes('truncated.jsonl: cut short') &&
          watch.log().includes('replaced.jsonl: rewritten'),
        20_000,
        watch,
      );
      const stored = Buffer.byteLength(truncatedText);
      expect(watch.log()).toContain(
        `${truncated}: cut short: it now holds 200 bytes, fewer than the ${stored} already stored; ` +
          `it is not read again until it starts once more with the ${stored} bytes already stored ` +
          '(looked at each time the file changes), or until its entry is removed from the checkpoint file\n',
      );
      expect(watch.log()).toMatch(
        /replaced\.jsonl: rewritten: its first \d+ bytes are no longer the ones already stored/,
      );
      writeFileSync(truncated, truncatedText);
      await waitFor(
        'the truncated file followed again',
        () => watch.log().includes('followed again'),
        20_000,
        watch,
      );
      expect(watch.log()).toContain(
        `${truncated}: followed again: it starts with the ${stored} bytes already stored; storing what comes after them\n`,
      );
    } finally {
      await watch.stop();
    }
    expect(await storedText(storePath, 'swap-2')).toBeUndefined();
    expect(await storedText(storePath, 'cut-1')).toBe(truncatedText);
  });
});

describe('strata watch of Claude Code and Codex transcripts', () => {
  const samples: readonly [TranscriptSampleName, string, 'claude-code' | 'codex', 'auto' | 'codex'][] = [
    ['claude-code-tools.jsonl', '7d3b2f1e-5c4a-4e8b-9a61-2f0c8d9e1a01', 'claude-code', 'auto'],
    ['claude-code-compaction.jsonl', '9e8d7c6b-1111-4222-8333-444455556666', 'claude-code', 'auto'],
    ['codex-rollout.jsonl', '0199a2b3-c4d5-7e6f-8a9b-0c1d2e3f4a5b', 'codex', 'codex'],
    ['codex-legacy-rollout.jsonl', '2c9f4a1e-7b3d-4e8a-9f60-1a2b3c4d5e6f', 'codex', 'auto'],
  ];

  it.each(samples)(
    'stores %s written in bursts as its import does, but for what the next lines may still extend',
    async (name, sessionId, readAs, format) => {
      const bytes = readTranscriptSample(name);
      // what `strata import` makes of the whole file
      const reference = new SqliteEventStore({ filename: join(directory, 'reference.db') });
      await importSessionFile(reference, bytes.toString('utf8'), { format });
      const imported = await exportSession(reference, sessionId);
      await reference.close();

      const folder = join(directory, 'transcripts');
      mkdirSync(folder);
      const storePath = join(directory, 'strata.db');
      const watch = startWatch([folder, '--store', `sqlite:${storePath}`, '--format', format]);
      const importedLines = imported.split('\n');
      // a converter holds back the entries a later line could still extend (the last answer, a
      // file's closing lines): those the whole file releases before its end are what watch stores
      const reader = createSessionLineReader(readAs);
      const released = reader.convert(
        bytes
          .toString('utf8')
          .split(/(?<=\n)/)
          .filter((line) => line.endsWith('\n')),
      ).length;
      expect(released).toBeGreaterThan(0);
      let followed = '';
      try {
        await waitFor('watch to start', () => watch.log().includes('watching'));
        await writeInBursts(join(folder, name), bytes, randomFrom(21));
        // everything but what the converter holds back for the file's next lines arrives
        await waitFor(
          'the session to hold the entries the file released',
          async () => {
            followed = (await storedText(storePath, sessionId)) ?? '';
            return followed.split('\n').length >= released + 2;
          },
          20_000,
          watch,
        );
      } finally {
        expect(await watch.stop('SIGINT')).toBe(0);
      }
      expect(watch.log()).toContain(`following ${join(folder, name)}`);
      expect(followed.split('\n')).toHaveLength(released + 2);
      expect(importedLines.length).toBeGreaterThanOrEqual(released + 2);
      // the same entries, with the same ids and content, in the same order
      expect(imported.startsWith(followed)).toBe(true);
      // a tool call stored is stored with its result
      const file = parseSessionFile(followed, { mode: 'strict' });
      const context = buildSessionContext(file.entries, undefined);
      const calls = context.messages.flatMap((message) =>
        message.role === 'assistant'
          ? message.content.flatMap((block) => (block.type === 'toolCall' ? [block.id] : []))
          : [],
      );
      const results = context.messages.flatMap((message) =>
        message.role === 'toolResult' ? [message.toolCallId] : [],
      );
      expect(calls.length).toBeGreaterThan(0);
      expect(results.sort()).toEqual(calls.sort());
      // the original lines kept are the file's first lines, byte for byte
      const store = new SqliteEventStore({ filename: storePath });
      try {
        const original = Buffer.from((await exportOriginalFile(store, sessionId)).text, 'utf8');
        expect(original.length).toBeGreaterThan(0);
        expect(bytes.subarray(0, original.length).equals(original)).toBe(true);
      } finally {
        await store.close();
      }
    },
  );
});

describe('strata watch through an engine over HTTP', () => {
  let engine: HttpHarness;
  const key = 'watch-key-0123456789abcdef';
  beforeAll(async () => {
    engine = await startHttpEngine({ environment: { STRATA_API_KEYS: `acme:watcher:${key}` } });
  });
  afterAll(() => engine.close());

  it('stores files written in bursts under the key tenant, and resumes after a SIGKILL', async () => {
    const folder = join(directory, 'sessions');
    mkdirSync(folder);
    const args = [folder, '--url', engine.url, '--api-key', key, '--checkpoint', join(directory, 'cp.json')];
    const files = Array.from({ length: 5 }, (_, index) => ({
      sessionId: `http-${index}`,
      path: join(folder, `http-${index}.jsonl`),
      text: sessionText(`http-${index}`, 10 + index),
    }));
    const random = randomFrom(11);
    const first = startWatch(args);
    await waitFor('watch to start', () => first.log().includes('watching'));
    const half = await Promise.all(
      files.map((file) => writeInBursts(file.path, file.text, random, Math.floor(file.text.length / 2))),
    );
    // A deliberate interleaving, as above: killed wherever it is in its work.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await first.stop('SIGKILL');
    const second = startWatch(args);
    try {
      await Promise.all(
        files.map((file, index) => {
          appendFileSync(file.path, Buffer.from(file.text).subarray(half[index]));
          return Promise.resolve();
        }),
      );
      const exported = async (sessionId: string) =>
        (await engine.request('GET', `/sessions/${sessionId}/export`, { key })).text;
      await waitFor('every session to equal its file', async () => {
        for (const file of files) if ((await exported(file.sessionId)) !== file.text) return false;
        return true;
      });
    } finally {
      await second.stop();
    }
    const listed = await engine.request('GET', '/sessions', { key });
    expect((listed.body as { items: unknown[] }).items).toHaveLength(5);
  });
});
