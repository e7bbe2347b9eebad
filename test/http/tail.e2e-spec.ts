// End to end: `strata tail` against a listening engine — one JSON line per event, resuming with
// Last-Event-ID when the engine restarts, and independent subscribers keeping their own
// checkpoints across their own restarts (each session_compact exactly once for each).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from '@strata/testing';
import { CliError } from '../../apps/cli/src/cli-io';
import { tailEvents, type TailOptions } from '../../apps/cli/src/commands/tail.command';
import { recordingIo } from '../../apps/cli/src/testing-io';
import {
  ALPHA_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  compactOne,
  startHttpEngine,
  type HttpHarness,
} from './http-harness';

const settings = { compaction: { keepRecentTokens: 250 } };

function linesOf(
  text: string,
): { name: string; id: string; sessionId: string; data: { compactionEntry: { id: string } } }[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ReturnType<typeof linesOf>[number]);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('given a tail of compaction events and an engine that restarts', () => {
  it('prints each session_compact once, across the restart', async () => {
    let engine = await startHttpEngine({ settings });
    const { directory, port, url } = engine;
    const io = recordingIo();
    const controller = new AbortController();
    const tail = tailEvents(
      { url, types: 'session_compact', from: 'start', maxEvents: 3, reconnectDelayMs: 50 },
      io,
      controller.signal,
    );
    try {
      const first = await compactOne(engine, 'tail-1');
      await until(() => linesOf(io.out()).length === 1, 'the first event');
      await engine.close({ keepDirectory: true });
      engine = await startHttpEngine({ settings, directory, port });
      const second = await compactOne(engine, 'tail-2');
      const third = await compactOne(engine, 'tail-3');
      await expect(tail).resolves.toBe(0);

      const lines = linesOf(io.out());
      expect(lines.map((line) => line.data.compactionEntry.id)).toEqual([first, second, third]);
      expect(lines.every((line) => line.name === 'session_compact')).toBe(true);
      expect(new Set(lines.map((line) => line.id)).size).toBe(3);
      expect(io.err()).toMatch(/reconnecting in \d+ ms after event \d+/);
    } finally {
      controller.abort();
      await tail.catch(() => undefined);
      await engine.close();
    }
  });
});

describe('given two subscribers with their own checkpoints', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings });
  });

  afterAll(() => engine.close());

  it('says on stderr that it is connected, from where it reads, and when it has caught up', async () => {
    const io = recordingIo();
    const controller = new AbortController();
    const tail = tailEvents({ url: engine.url, from: 'end' }, io, controller.signal);
    try {
      await until(() => io.err().includes('caught up'), 'the connected and caught-up lines');
      expect(io.err()).toBe(
        `strata tail: connected to ${new URL(engine.url).origin}, reading new events only\n` +
          'strata tail: caught up; waiting for new events\n',
      );
      expect(io.out()).toBe('');
    } finally {
      controller.abort();
      await tail.catch(() => undefined);
    }
  });

  it('each receives every session_compact exactly once across its own restarts', async () => {
    const checkpoint = (name: string): string => join(engine.directory, `${name}.checkpoint`);
    const run = async (name: string, maxEvents: number): Promise<string[]> => {
      const io = recordingIo();
      const options: TailOptions = {
        url: engine.url,
        types: 'session_compact',
        from: 'start',
        checkpointFile: checkpoint(name),
        maxEvents,
      };
      await tailEvents(options, io, new AbortController().signal);
      return linesOf(io.out()).map((line) => line.data.compactionEntry.id);
    };
    const compactions = [await compactOne(engine, 'checkpoint-1'), await compactOne(engine, 'checkpoint-2')];

    const alpha = [...(await run('alpha', 1)), ...(await run('alpha', 1))];
    const beta = await run('beta', 2);
    compactions.push(await compactOne(engine, 'checkpoint-3'));
    alpha.push(...(await run('alpha', 1)));
    beta.push(...(await run('beta', 1)));

    expect(alpha).toEqual(compactions);
    expect(beta).toEqual(compactions);
    expect(readFileSync(checkpoint('alpha'), 'utf8')).toBe(readFileSync(checkpoint('beta'), 'utf8'));
  });
});

describe('given an engine with API keys', () => {
  let engine: HttpHarness;

  beforeAll(async () => {
    engine = await startHttpEngine({ settings, environment: { STRATA_API_KEYS: TWO_TENANT_KEYS } });
  });

  afterAll(() => engine.close());

  it("follows the key's tenant only", async () => {
    await compactOne(engine, 'keys-alpha', { key: ALPHA_KEY });
    const betaCompaction = await compactOne(engine, 'keys-beta', { key: BETA_KEY });
    const io = recordingIo();
    await tailEvents(
      { url: engine.url, apiKey: BETA_KEY, types: 'session_compact', from: 'start', maxEvents: 1 },
      io,
      new AbortController().signal,
    );
    expect(linesOf(io.out()).map((line) => [line.sessionId, line.data.compactionEntry.id])).toEqual([
      ['keys-beta', betaCompaction],
    ]);
  });

  it('stops with the reason when the engine refuses the stream', async () => {
    const signal = new AbortController().signal;
    await expect(
      tailEvents({ url: engine.url, apiKey: 'wrong-key-0123456789' }, recordingIo(), signal),
    ).rejects.toThrow(/refused the stream \(401\): the API key is not valid/);
    await expect(
      tailEvents({ url: engine.url, apiKey: ALPHA_KEY, types: 'compaction_done' }, recordingIo(), signal),
    ).rejects.toBeInstanceOf(CliError);
  });

  it('runs as the strata executable, printing one JSON line per event', async () => {
    const child = spawn(
      process.execPath,
      [
        join(repositoryRoot, 'bin', 'strata.js'),
        'tail',
        '--types',
        'session_compact',
        '--from',
        'start',
        '--max-events',
        '2',
        '--url',
        engine.url,
      ],
      { cwd: repositoryRoot, env: { ...process.env, STRATA_API_KEY: ALPHA_KEY } },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await until(() => linesOf(stdout).length === 1, 'the first line from the executable');
    await compactOne(engine, 'keys-alpha-2', { key: ALPHA_KEY });
    expect(await exited).toBe(0);
    expect(linesOf(stdout).map((line) => line.sessionId)).toEqual(['keys-alpha', 'keys-alpha-2']);
  });
});
