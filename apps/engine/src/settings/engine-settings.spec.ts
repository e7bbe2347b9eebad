import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionModelOf } from '@strata/session';
import { session } from '@strata/testing';
import { contextWindowOf, loadEngineSettings, parseEngineSettings } from './engine-settings';
import { resolveSessionSettings, SESSION_SETTINGS_CUSTOM_TYPE } from './session-settings';
import { SettingsValidationError } from './settings-validation-error';

describe('engine settings', () => {
  describe('given nothing configured', () => {
    it('take the reference defaults, the offline summariser and the o200k counter', () => {
      expect(parseEngineSettings({})).toEqual({
        compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000, autoContinue: true },
        branchSummary: { enabled: false, reserveTokens: 16384 },
        pruning: { protectTokens: 40000, minimumSavings: 20000, protectedTools: ['skill', 'read'] },
        summarizer: { candidates: [{ provider: 'offline' }], retry: {} },
        models: { defaultContextWindow: 128000, contextWindows: {} },
        tokenizer: 'o200k',
        retention: {},
      });
    });
  });

  describe('given retention rules', () => {
    it('keep whole days per tenant, from 1 to 36,500', () => {
      expect(parseEngineSettings({ retention: { alpha: 30, beta: 365 } }).retention).toEqual({
        alpha: 30,
        beta: 365,
      });
      for (const days of [0, -1, 1.5, 36_501, '30']) {
        expect(() => parseEngineSettings({ retention: { alpha: days } })).toThrow(SettingsValidationError);
      }
      expect(() => parseEngineSettings({ retention: { '': 30 } })).toThrow(SettingsValidationError);
    });
  });

  describe('given some sections', () => {
    it('fill the rest of each section with defaults', () => {
      const settings = parseEngineSettings({
        compaction: { keepRecentTokens: 5000 },
        summarizer: { candidates: [{ provider: 'anthropic', model: 'claude-x' }] },
      });
      expect(settings.compaction).toMatchObject({
        enabled: true,
        keepRecentTokens: 5000,
        reserveTokens: 16384,
      });
      expect(settings.summarizer.candidates).toEqual([
        { provider: 'anthropic', model: 'claude-x', apiKeyEnv: 'ANTHROPIC_API_KEY' },
      ]);
    });
  });

  describe('given invalid values', () => {
    it('fail with every problem named by its path', () => {
      const attempt = () =>
        parseEngineSettings(
          {
            compaction: { reserveTokens: -1, remoteEndpoint: 'not a url' },
            summarizer: { candidates: [{ provider: 'gemini' }] },
            unknownSection: true,
          },
          'strata.json',
        );
      expect(attempt).toThrow(SettingsValidationError);
      try {
        attempt();
      } catch (error) {
        const problems = (error as SettingsValidationError).problems;
        expect(problems.some((problem) => problem.startsWith('compaction.reserveTokens:'))).toBe(true);
        expect(problems.some((problem) => problem.startsWith('compaction.remoteEndpoint:'))).toBe(true);
        expect(problems.some((problem) => problem.startsWith('summarizer.candidates.0.provider:'))).toBe(
          true,
        );
        expect(problems.some((problem) => problem.includes('unknownSection'))).toBe(true);
        expect((error as Error).message).toMatch(/^invalid settings in strata\.json:\n {2}- /);
      }
    });

    it('refuse an API key variable that is not a variable name', () => {
      expect(() =>
        parseEngineSettings({
          summarizer: {
            candidates: [{ provider: 'openai-compatible', model: 'm', apiKeyEnv: 'sk-live-123' }],
          },
        }),
      ).toThrow(/apiKeyEnv: must be the name of an environment variable/);
    });
  });

  describe('loaded from the file named by STRATA_SETTINGS', () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-settings-'));

    it('reads and validates it, relative to the working directory', () => {
      writeFileSync(join(directory, 'ok.json'), JSON.stringify({ branchSummary: { enabled: true } }));
      expect(loadEngineSettings({ STRATA_SETTINGS: 'ok.json' }, directory).branchSummary.enabled).toBe(true);
    });

    it('reports a file that is not JSON', () => {
      writeFileSync(join(directory, 'broken.json'), '{ nope');
      expect(() => loadEngineSettings({ STRATA_SETTINGS: 'broken.json' }, directory)).toThrow(/is not JSON/);
    });

    it('uses the defaults without the variable', () => {
      expect(loadEngineSettings({}, directory).compaction.keepRecentTokens).toBe(20000);
    });
  });

  describe('context windows', () => {
    const settings = parseEngineSettings({
      models: {
        defaultContextWindow: 100000,
        contextWindows: { 'anthropic/claude-x': 200000, 'gpt-y': 400000 },
      },
    });

    it('are looked up by full name, then by bare model id, then fall back to the default', () => {
      expect(contextWindowOf(settings, 'anthropic/claude-x')).toBe(200000);
      expect(contextWindowOf(settings, 'openai/gpt-y')).toBe(400000);
      expect(contextWindowOf(settings, 'other/model')).toBe(100000);
      expect(contextWindowOf(settings, undefined)).toBe(100000);
    });

    it('follow a model change written as pi writes it (provider and modelId; issue 13, item 9)', () => {
      const entries = session()
        .user('go')
        .assistant('ok', { provider: 'anthropic', model: 'claude-x' })
        .piModelChange('openai', 'gpt-y').entries;
      expect(contextWindowOf(settings, sessionModelOf(entries.slice(0, 2)))).toBe(200000);
      expect(contextWindowOf(settings, sessionModelOf(entries))).toBe(400000);
    });
  });
});

describe('per-session settings', () => {
  const engine = parseEngineSettings({ compaction: { reserveTokens: 8000 } });

  describe('given settings entries in a session', () => {
    const entries = session()
      .user('go')
      .custom(SESSION_SETTINGS_CUSTOM_TYPE, { compaction: { keepRecentTokens: 100 } })
      .custom(SESSION_SETTINGS_CUSTOM_TYPE, {
        compaction: { keepRecentTokens: 300 },
        branchSummary: { enabled: true },
      }).entries;

    it('merge the newest over the engine settings, field by field', () => {
      const resolved = resolveSessionSettings(engine, entries);
      expect(resolved.settings.compaction).toMatchObject({
        keepRecentTokens: 300,
        reserveTokens: 8000,
        enabled: true,
      });
      expect(resolved.settings.branchSummary.enabled).toBe(true);
      expect(resolved.overrideEntryId).toBe(entries.at(-1)?.id);
    });
  });

  describe('given an invalid settings entry (imported as it was)', () => {
    const entries = session()
      .user('go')
      .custom(SESSION_SETTINGS_CUSTOM_TYPE, { summarizer: { candidates: [] } }).entries;

    it('ignore it and report why: a session never chooses its summariser', () => {
      const resolved = resolveSessionSettings(engine, entries);
      expect(resolved.settings).toBe(engine);
      expect(resolved.ignored?.problems).toEqual([expect.stringContaining('summarizer')]);
    });
  });
});
