// End to end: the session use cases other than compaction and navigation — starting, appending
// (expected revision or leaf, idempotency key), labelling, per-session settings — and the
// integrity chain of everything the engine writes.
import { verifyStream } from '@strata/integrity';
import { sessionStreamName, type SessionEntry } from '@strata/session';
import { ScriptedSummarizer, session } from '@strata/testing';
import { SESSION_SETTINGS_CUSTOM_TYPE } from '../../apps/engine/src/settings/session-settings';
import { SettingsValidationError } from '../../apps/engine/src/settings/settings-validation-error';
import { AppendEntriesCommand } from '../../apps/engine/src/sessions/append-entries/append-entries.command';
import { CompactSessionCommand } from '../../apps/engine/src/sessions/compact-session/compact-session.command';
import { SetLabelCommand } from '../../apps/engine/src/sessions/set-label/set-label.command';
import { StartSessionCommand } from '../../apps/engine/src/sessions/start-session/start-session.command';
import { IdempotencyMismatchError } from '../../apps/engine/src/shared/idempotency';
import { startEngine, type EngineHarness } from './engine-harness';

const TIMESTAMP = '2026-02-01T00:00:00.000Z';

function userEntry(id: string, parentId: string | null, text: string): SessionEntry {
  return {
    type: 'message',
    id,
    parentId,
    timestamp: TIMESTAMP,
    message: { role: 'user', content: text, timestamp: 1 },
  };
}

describe('session commands', () => {
  let engine: EngineHarness;

  beforeEach(async () => {
    engine = await startEngine({ summarizers: [new ScriptedSummarizer()] });
  });

  afterEach(() => engine.close());

  describe('StartSession', () => {
    it('opens the stream with a v3 header, once per session id', async () => {
      const first = await engine.commands.execute(
        new StartSessionCommand({ sessionId: 's-1', cwd: '/repo', title: 'Demo' }),
      );
      const again = await engine.commands.execute(
        new StartSessionCommand({ sessionId: 's-1', cwd: '/repo', title: 'Demo' }),
      );

      expect(first).toMatchObject({
        alreadyStarted: false,
        header: { type: 'session', version: 3, id: 's-1', cwd: '/repo', title: 'Demo' },
      });
      expect(again).toMatchObject({ alreadyStarted: true, header: first.header });
      expect((await engine.events('s-1')).map((event) => event.type)).toEqual(['SessionStarted']);
    });

    it('names a fresh session when no id is given', async () => {
      const started = await engine.commands.execute(new StartSessionCommand({ cwd: '/repo' }));
      expect(started.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('AppendEntries', () => {
    beforeEach(() => engine.commands.execute(new StartSessionCommand({ sessionId: 's', cwd: '/repo' })));

    it('appends a batch and moves the leaf to its last entry', async () => {
      const result = await engine.commands.execute(
        new AppendEntriesCommand('s', [userEntry('a', null, 'one'), userEntry('b', 'a', 'two')], {
          expectedLeafId: null,
        }),
      );
      expect(result).toMatchObject({
        entryIds: ['a', 'b'],
        leafId: 'b',
        revision: 2n,
        alreadyAppended: false,
      });
    });

    it('writes a batch once per idempotency key', async () => {
      const batch = [userEntry('a', null, 'one')];
      await engine.commands.execute(new AppendEntriesCommand('s', batch, { idempotencyKey: 'k1' }));
      const retried = await engine.commands.execute(
        new AppendEntriesCommand('s', batch, { idempotencyKey: 'k1' }),
      );

      expect(retried.alreadyAppended).toBe(true);
      expect((await engine.events('s')).map((event) => event.type)).toEqual([
        'SessionStarted',
        'EntryAppended',
      ]);
    });

    it('keeps exactly one of concurrent first batches with one key and different entries', async () => {
      const batches = Array.from({ length: 8 }, (_, writer) =>
        Array.from({ length: 1 + (writer % 3) }, (_, index) =>
          userEntry(
            `w${writer}-${index}`,
            index === 0 ? null : `w${writer}-${index - 1}`,
            `writer ${writer}`,
          ),
        ),
      );
      const outcomes = await Promise.allSettled(
        batches.map((batch) =>
          engine.commands.execute(new AppendEntriesCommand('s', batch, { idempotencyKey: 'race' })),
        ),
      );
      const winners = outcomes.flatMap((outcome, writer) => (outcome.status === 'fulfilled' ? [writer] : []));
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(IdempotencyMismatchError);
      }
      const stored = (await engine.events('s')).flatMap((event) =>
        event.type === 'EntryAppended' ? [(event.data as { entry: SessionEntry }).entry.id] : [],
      );
      expect(stored).toEqual(batches[winners[0]!]!.map((entry) => entry.id));
    });

    it('refuses a writer whose expected revision or leaf is out of date', async () => {
      await engine.commands.execute(new AppendEntriesCommand('s', [userEntry('a', null, 'one')]));

      await expect(
        engine.commands.execute(
          new AppendEntriesCommand('s', [userEntry('b', 'a', 'two')], { expectedRevision: 0n }),
        ),
      ).rejects.toMatchObject({ code: 'conflict' });
      await expect(
        engine.commands.execute(
          new AppendEntriesCommand('s', [userEntry('b', 'a', 'two')], { expectedLeafId: null }),
        ),
      ).rejects.toMatchObject({ code: 'conflict' });
      const accepted = await engine.commands.execute(
        new AppendEntriesCommand('s', [userEntry('b', 'a', 'two')], {
          expectedRevision: 1n,
          expectedLeafId: 'a',
        }),
      );
      expect(accepted.leafId).toBe('b');
    });

    it('refuses an invalid settings entry with the problems named', async () => {
      const settingsEntry: SessionEntry = {
        type: 'custom',
        id: 'settings',
        parentId: null,
        timestamp: TIMESTAMP,
        customType: SESSION_SETTINGS_CUSTOM_TYPE,
        data: { compaction: { keepRecentTokens: 'lots' } },
      };
      const appending = engine.commands.execute(new AppendEntriesCommand('s', [settingsEntry]));
      await expect(appending).rejects.toBeInstanceOf(SettingsValidationError);
      await expect(appending).rejects.toThrow(/compaction\.keepRecentTokens/);
    });
  });

  describe('SetLabel', () => {
    beforeEach(async () => {
      await engine.commands.execute(new StartSessionCommand({ sessionId: 's', cwd: '/repo' }));
      await engine.commands.execute(new AppendEntriesCommand('s', [userEntry('a', null, 'one')]));
    });

    it('appends a label entry at the leaf, and an empty label clears it', async () => {
      const set = await engine.commands.execute(new SetLabelCommand('s', 'a', 'checkpoint'));
      expect(set.entry).toMatchObject({ type: 'label', parentId: 'a', targetId: 'a', label: 'checkpoint' });
      expect((await engine.load('s')).state.labelOf('a')).toBe('checkpoint');

      await engine.commands.execute(new SetLabelCommand('s', 'a', undefined));
      expect((await engine.load('s')).state.labelOf('a')).toBeUndefined();
    });

    it('refuses a label for an unknown entry', async () => {
      await expect(engine.commands.execute(new SetLabelCommand('s', 'missing', 'x'))).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  describe('given a session that lowers its own keep budget', () => {
    const builder = session({ sessionId: 'tuned' });
    for (let turn = 0; turn < 6; turn += 1) {
      builder.user(`Step ${turn}`).assistant('y'.repeat(400));
    }
    builder.custom(SESSION_SETTINGS_CUSTOM_TYPE, { compaction: { keepRecentTokens: 150 } });

    it('compacts with the session setting, where the engine default would skip', async () => {
      await engine.seed(builder.header, builder.entries.slice(0, -1));
      const withDefaults = await engine.commands.execute(new CompactSessionCommand('tuned'));
      await engine.commands.execute(new AppendEntriesCommand('tuned', builder.entries.slice(-1)));
      const withOverride = await engine.commands.execute(new CompactSessionCommand('tuned'));

      expect(withDefaults).toMatchObject({ outcome: 'skipped', reason: 'nothing_to_summarize' });
      expect(withOverride.outcome).toBe('completed');
    });
  });

  describe('the integrity chain', () => {
    it('holds over everything the engine wrote, and the events carry the engine as actor', async () => {
      const builder = session({ sessionId: 'chained' });
      for (let turn = 0; turn < 6; turn += 1) builder.user(`Step ${turn}`).assistant('y'.repeat(400));
      await engine.seed(builder.header, builder.entries);
      await engine.commands.execute(new SetLabelCommand('chained', 'e0001', 'start'));
      await engine.commands.execute(new CompactSessionCommand('chained'));

      expect(await verifyStream(engine.store, sessionStreamName('chained'))).toMatchObject({ ok: true });
      expect(
        (await engine.events('chained')).every((event) => event.metadata.actor === 'strata-engine'),
      ).toBe(true);
    });
  });
});
