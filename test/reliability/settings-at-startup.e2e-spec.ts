// `npm start` with a settings file (issue 13, "Done when"): the real `node bin/engine.js`. An
// invalid file stops the engine with the list of its problems, each naming its key, and no stack
// trace; a valid one is named in the start-up message with the context windows and the
// summariser candidates it puts in effect.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngineProcess, type EngineProcess } from './support/engine-process';

jest.setTimeout(120_000);

describe('the engine started with a settings file', () => {
  let directory: string;
  let engine: EngineProcess | undefined;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-settings-'));
  });

  afterEach(async () => {
    await engine?.kill('SIGTERM');
    engine = undefined;
    rmSync(directory, { recursive: true, force: true });
  });

  /** Starts the engine on `settingsFile` and returns what it said when it ended before listening. */
  async function failedStart(settingsFile: string): Promise<string> {
    const failure = await startEngineProcess({
      directory,
      environment: { STRATA_SETTINGS: settingsFile },
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    return (failure as Error).message;
  }

  it('that is invalid: exits 1 listing every problem by key, without a stack trace', async () => {
    const bad = join(directory, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        compaction: { reserveTokens: -1, keepRecentTokens: 'many' },
        models: { contextWindows: { 'gpt-4o': 0 } },
        summarizer: { candidates: [{ provider: 'anthropic' }] },
        tokeniser: 'o200k',
      }),
    );
    const message = await failedStart('bad.json');
    expect(message).toContain('ended (1) before it listened');
    expect(message).toContain(`invalid settings in ${bad}:`);
    for (const problem of [
      '  - compaction.reserveTokens: ',
      '  - compaction.keepRecentTokens: ',
      '  - models.contextWindows.gpt-4o: ',
      '  - summarizer.candidates.0.model: ',
      '  - (settings): Unrecognized key: "tokeniser"',
    ])
      expect(message).toContain(problem);
    expect(message).toContain('The engine did not start.');
    expect(message).not.toMatch(/^\s+at /m);
    expect(message).not.toContain('ExceptionHandler');
  });

  it('that is not JSON, or missing: says so, without a stack trace', async () => {
    writeFileSync(join(directory, 'broken.json'), '{"compaction": ');
    const broken = await failedStart('broken.json');
    expect(broken).toContain(`invalid settings in ${join(directory, 'broken.json')}:\n  - is not JSON: `);
    expect(broken).not.toMatch(/^\s+at /m);
    const missing = await failedStart('nowhere.json');
    expect(missing).toContain(
      `invalid settings in ${join(directory, 'nowhere.json')}:\n  - cannot be read: `,
    );
    expect(missing).not.toMatch(/^\s+at /m);
  });

  it('that is valid: names it, the context windows and the summariser candidates in effect', async () => {
    engine = await startEngineProcess({
      directory,
      settings: {
        models: {
          defaultContextWindow: 200_000,
          contextWindows: { 'anthropic/claude-opus-4-5': 200_000, 'gpt-4o': 128_000 },
        },
        summarizer: {
          candidates: [
            { provider: 'anthropic', model: 'claude-haiku-4-5', apiKeyEnv: 'STRATA_TEST_UNSET_KEY' },
            { provider: 'offline' },
          ],
        },
      },
    });
    const stdout = engine.stdout();
    expect(stdout).toContain(`  settings:       ${join(directory, 'settings.json')} (STRATA_SETTINGS)\n`);
    expect(stdout).toContain(
      '  context windows: 200,000 tokens by default; anthropic/claude-opus-4-5 200,000; gpt-4o 128,000\n',
    );
    expect(stdout).toContain(
      '  summarisers:    anthropic:claude-haiku-4-5 (left out: STRATA_TEST_UNSET_KEY is not set), then offline-extractive\n',
    );
  });

  it('that is not given: says every setting has its default', async () => {
    engine = await startEngineProcess({ directory, environment: { STRATA_SETTINGS: '' } });
    expect(engine.stdout()).toContain('  settings:       none: every setting has its default');
    expect(engine.stdout()).toContain('  context windows: 128,000 tokens by default\n');
    expect(engine.stdout()).toContain('  summarisers:    offline-extractive\n');
  });
});
