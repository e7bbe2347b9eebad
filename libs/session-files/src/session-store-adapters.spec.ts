import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeSessionFile } from '@strata/session';
import { session, startEsdbTestServer } from '@strata/testing';
import { type EventStore, openEventStore } from '@strata/event-store';
import { verifyStream } from '@strata/integrity';
import { exportSession, importSessionFile, loadSession } from '.';

interface OpenedStore {
  readonly store: EventStore;
  readonly cleanup: () => Promise<void>;
}

const adapters: readonly (readonly [string, () => Promise<OpenedStore>])[] = [
  [
    'SQLite',
    () => {
      const directory = mkdtempSync(join(tmpdir(), 'strata-sessions-'));
      const store = openEventStore(`sqlite:${join(directory, 'strata.db')}`);
      return Promise.resolve({
        store,
        cleanup: async () => {
          await store.close();
          rmSync(directory, { recursive: true, force: true });
        },
      });
    },
  ],
  [
    'EventStoreDB (protocol test server)',
    async () => {
      const server = await startEsdbTestServer();
      const store = openEventStore(server.connectionString);
      return {
        store,
        cleanup: async () => {
          await store.close();
          await server.stop();
        },
      };
    },
  ],
];

const built = session({ sessionId: 'adapter-session' })
  .user('Add a --dry-run flag')
  .assistantToolCalls([{ name: 'edit', arguments: { path: 'src/cli.ts' } }])
  .toolResult('edit', 'ok')
  .assistant('Added.');
const text = serializeSessionFile(built.header, built.entries);

describe.each(adapters)('sessions on the %s store', (_name, open) => {
  let opened: OpenedStore;
  beforeEach(async () => {
    opened = await open();
  });
  afterEach(() => opened.cleanup());

  it('imports once, re-imports as unchanged, exports the same file and keeps a holding chain', async () => {
    const { store } = opened;
    expect(await importSessionFile(store, text, { actor: 'tester' })).toMatchObject({
      outcome: 'imported',
      revision: 4n,
    });
    expect(await importSessionFile(store, text)).toMatchObject({ outcome: 'unchanged', eventsWritten: 0 });
    expect(await exportSession(store, 'adapter-session')).toBe(text);
    expect((await loadSession(store, 'adapter-session')).eventCount).toBe(5);
    expect(await verifyStream(store, 'session-adapter-session')).toEqual(
      expect.objectContaining({ ok: true, events: 5 }),
    );
  });
});
