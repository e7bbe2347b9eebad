// `strata compact` and `strata navigate` in-process: the engine's commands on a SQLite store
// named by --store, with the embedded offline summariser.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { importSessionFile, loadSession } from '@strata/session-files';
import { OFFLINE_SUMMARIZER_NAME } from '@strata/summarizer';
import { serializeSessionFile, sessionStreamName } from '@strata/session';
import { session } from '@strata/testing';
import { runCli } from '../run-cli';
import { recordingIo } from '../testing-io';
import { commands } from '.';

const builder = session();
builder.editTurns(6);
const leafBeforeBranch = builder.lastId;
builder.branchFrom('e0002').user('Something else entirely').assistant('Sure.');
const sessionId = builder.header.id;

describe('strata compact and strata navigate', () => {
  let directory: string;
  let storeUrl: string;
  let settingsFile: string;

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'strata-cli-engine-'));
    const storeFile = join(directory, 'store.db');
    storeUrl = `sqlite:${storeFile}`;
    settingsFile = join(directory, 'settings.json');
    writeFileSync(
      settingsFile,
      JSON.stringify({
        tokenizer: 'chars4',
        compaction: { keepRecentTokens: 250 },
        branchSummary: { enabled: true },
      }),
    );
    const store = new SqliteEventStore({ filename: storeFile });
    await importSessionFile(store, serializeSessionFile(builder.header, builder.entries));
    await store.close();
  });

  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  async function stored() {
    const store = new SqliteEventStore({ filename: join(directory, 'store.db') });
    try {
      return await loadSession(store, sessionId);
    } finally {
      await store.close();
    }
  }

  it('navigate --summarize --json moves the leaf and prints the branch summary it attached', async () => {
    const io = recordingIo();
    const code = await runCli(
      [
        'navigate',
        sessionId,
        leafBeforeBranch,
        '--summarize',
        '--store',
        storeUrl,
        '--settings',
        settingsFile,
        '--json',
      ],
      io,
      commands,
    );

    expect(code).toBe(0);
    const result = JSON.parse(io.out()) as {
      outcome: string;
      summary: { entry: { id: string; parentId: string } };
    };
    expect(result.outcome).toBe('navigated');
    expect(result.summary.entry.parentId).toBe(leafBeforeBranch);
    expect((await stored()).leafId).toBe(result.summary.entry.id);
  });

  it('compact --instructions --json compacts with the offline summariser and prints the entry', async () => {
    await runCli(['navigate', sessionId, leafBeforeBranch, '--store', storeUrl], recordingIo(), commands);
    const io = recordingIo();
    const code = await runCli(
      [
        'compact',
        sessionId,
        '--instructions',
        'Mind the modules',
        '--store',
        storeUrl,
        '--settings',
        settingsFile,
        '--json',
      ],
      io,
      commands,
    );

    expect(code).toBe(0);
    const result = JSON.parse(io.out()) as {
      outcome: string;
      model: string;
      entry: { id: string; summary: string };
    };
    expect(result).toMatchObject({ outcome: 'completed', model: OFFLINE_SUMMARIZER_NAME });
    expect(result.entry.summary).toContain('src/module-0.ts');
    const loaded = await stored();
    expect(loaded.leafId).toBe(result.entry.id);
  });

  it('compact reports a skip in words when there is nothing to compact', async () => {
    const io = recordingIo();
    const code = await runCli(['compact', sessionId, '--store', storeUrl], io, commands);
    expect(code).toBe(0);
    expect(io.out()).toBe('Nothing compacted (nothing_to_summarize).\n');
  });

  it('compact --force compacts a context under the keep budget, keeping its last turn', async () => {
    const branchUser = builder.entries[builder.entries.length - 2]!;
    const io = recordingIo();
    const code = await runCli(['compact', sessionId, '--force', '--store', storeUrl, '--json'], io, commands);
    expect(code).toBe(0);
    const result = JSON.parse(io.out()) as { outcome: string; entry: { firstKeptEntryId: string } };
    expect(result).toMatchObject({ outcome: 'completed' });
    expect(result.entry.firstKeptEntryId).toBe(branchUser.id);
  });

  /** The actor recorded on each event of one of the given types, in stream order. */
  async function actorsOf(...types: string[]): Promise<unknown[]> {
    const store = new SqliteEventStore({ filename: join(directory, 'store.db') });
    try {
      const actors: unknown[] = [];
      for await (const event of store.readStream(sessionStreamName(sessionId))) {
        if (types.includes(event.type)) actors.push(event.metadata['actor']);
      }
      return actors;
    } finally {
      await store.close();
    }
  }

  it('compact and navigate record the user running the CLI as the actor (issue 25)', async () => {
    const user = `strata-cli:${userInfo().username}`;
    const navigated = await runCli(
      ['navigate', sessionId, leafBeforeBranch, '--store', storeUrl],
      recordingIo(),
      commands,
    );
    expect(navigated).toBe(0);
    const compacted = await runCli(
      ['compact', sessionId, '--force', '--store', storeUrl],
      recordingIo(),
      commands,
    );
    expect(compacted).toBe(0);
    expect(await actorsOf('LeafMoved', 'CompactionStarted', 'CompactionCompleted')).toEqual([
      user,
      user,
      user,
    ]);
  });

  it('compact --actor and navigate --actor record the actor given', async () => {
    const navigated = await runCli(
      ['navigate', sessionId, leafBeforeBranch, '--store', storeUrl, '--actor', 'ops@example.com'],
      recordingIo(),
      commands,
    );
    expect(navigated).toBe(0);
    const compacted = await runCli(
      ['compact', sessionId, '--force', '--store', storeUrl, '--actor', 'night-job'],
      recordingIo(),
      commands,
    );
    expect(compacted).toBe(0);
    expect(await actorsOf('LeafMoved', 'CompactionStarted', 'CompactionCompleted')).toEqual([
      'ops@example.com',
      'night-job',
      'night-job',
    ]);
  });

  it('navigate without a target is a usage error', async () => {
    const io = recordingIo();
    expect(await runCli(['navigate', sessionId, '--store', storeUrl], io, commands)).toBe(2);
    expect(io.err()).toContain('expected a session id and a target entry id');
  });
});
