// `strata erase`, `strata retention` and `strata import --allow-erased` on real SQLite files:
// the audited erasure from the command line, the retention rules of a settings file applied (or
// listed with --dry-run), and re-importing an erased session only when asked for.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { importSessionFile } from '@strata/session-files';
import { serializeSessionFile, sessionStreamName } from '@strata/session';
import { session } from '@strata/testing';
import { runCli } from '../run-cli';
import { recordingIo, type RecordingIo } from '../testing-io';
import { commands } from '.';

let directory: string;
let storeFile: string;
let store: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-erase-cli-'));
  storeFile = join(directory, 'strata.db');
  store = `sqlite:${storeFile}`;
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

async function strata(
  args: string[],
  env: Record<string, string> = {},
): Promise<RecordingIo & { code: number }> {
  const io = recordingIo({ STRATA_ANCHORS: 'off', ...env }, directory);
  const code = await runCli(args, io, commands);
  return Object.assign(io, { code });
}

function sessionText(sessionId: string, word = 'ordinary'): string {
  const built = session({ sessionId }).user(`the ${word} plan`).assistant('Noted.');
  return serializeSessionFile(built.header, built.entries);
}

/** Imports sessions into the store file as if written `daysAgo` days ago, for tenants named. */
async function seed(sessions: readonly { id: string; tenant: string; daysAgo: number }[]): Promise<void> {
  for (const { id, tenant, daysAgo } of sessions) {
    const written = new Date(Date.now() - daysAgo * 86_400_000);
    const sqlite = new SqliteEventStore({ filename: storeFile });
    try {
      // the seal's clock, whose time the store records
      await importSessionFile(sqlite, sessionText(id), { tenant, now: () => written });
    } finally {
      await sqlite.close();
    }
  }
}

async function streamEvents(sessionId: string): Promise<number> {
  const sqlite = new SqliteEventStore({ filename: storeFile });
  try {
    let count = 0;
    for await (const _event of sqlite.readStream(sessionStreamName(sessionId))) count += 1;
    return count;
  } finally {
    await sqlite.close();
  }
}

describe('strata erase', () => {
  it('removes the events, prints the record, and verify reports the erasure (exit 0)', async () => {
    const file = join(directory, 'secret.jsonl');
    writeFileSync(file, sessionText('secret', 'zanzibar'));
    expect((await strata(['import', file, '--store', store])).code).toBe(0);
    expect(await streamEvents('secret')).toBe(3);

    const erased = await strata([
      'erase',
      'secret',
      '--reason',
      'GDPR art. 17',
      '--actor',
      'dpo',
      '--store',
      store,
    ]);
    expect(erased.err()).toBe('');
    expect(erased.code).toBe(0);
    expect(erased.out()).toMatch(
      /^session secret erased at \S+ by dpo: GDPR art\. 17 \(3 events, head [0-9a-f]{12}… at revision 2\)\n$/,
    );
    expect(await streamEvents('secret')).toBe(0);
    const exported = await strata(['export', 'secret', '--store', store]);
    expect(exported.code).toBe(1);
    expect(exported.out()).not.toContain('zanzibar');

    const verified = await strata(['verify', 'secret', '--store', store]);
    expect(verified.code).toBe(0);
    expect(verified.out()).toContain('erased at');
    expect(verified.out()).toContain('by dpo: GDPR art. 17');
  });

  it('prints the record as JSON with --json', async () => {
    await seed([{ id: 'json-one', tenant: 'alpha', daysAgo: 0 }]);
    const erased = await strata(['erase', 'json-one', '--reason', 'test', '--store', store, '--json']);
    expect(erased.code).toBe(0);
    const record = JSON.parse(erased.out()) as Record<string, unknown>;
    expect(record).toMatchObject({
      sessionId: 'json-one',
      streamId: 'session-json-one',
      reason: 'test',
      tenant: 'alpha',
      eventCount: 3,
      headRevision: '2',
    });
    expect(record['actor']).toMatch(/^strata-cli/);
  });

  it('wants a reason, refuses an unknown session, and names the record of an erased one', async () => {
    await seed([{ id: 'twice', tenant: 'default', daysAgo: 0 }]);
    const noReason = await strata(['erase', 'twice', '--store', store]);
    expect(noReason.code).toBe(2);
    expect(noReason.err()).toContain('--reason: a reason is required');
    expect((await strata(['erase', 'twice', '--reason', 'x'.repeat(1_001), '--store', store])).code).toBe(2);
    expect(await streamEvents('twice')).toBe(3);

    const unknown = await strata(['erase', 'nobody', '--reason', 'x', '--store', store]);
    expect(unknown.code).toBe(1);
    expect(unknown.err()).toContain('no session nobody in the store');

    expect(
      (await strata(['erase', 'twice', '--reason', 'first', '--actor', 'a', '--store', store])).code,
    ).toBe(0);
    const again = await strata(['erase', 'twice', '--reason', 'second', '--store', store]);
    expect(again.code).toBe(1);
    expect(again.err()).toMatch(/session twice was erased at \S+ by a: first \(3 events/);
  });
});

describe('strata import of an erased session', () => {
  it('is refused, naming the record, unless --allow-erased', async () => {
    const file = join(directory, 'back.jsonl');
    writeFileSync(file, sessionText('back'));
    await strata(['import', file, '--store', store]);
    await strata(['erase', 'back', '--reason', 'mistake', '--actor', 'ops', '--store', store]);

    const refused = await strata(['import', file, '--store', store]);
    expect(refused.code).toBe(1);
    expect(refused.err()).toMatch(
      /session back was erased at \S+ by ops: mistake; --allow-erased imports it again/,
    );
    expect(await streamEvents('back')).toBe(0);

    const allowed = await strata(['import', file, '--store', store, '--allow-erased']);
    expect(allowed.code).toBe(0);
    expect(allowed.out()).toBe('back\n');
    expect(await streamEvents('back')).toBe(3);
    const verified = await strata(['verify', '--all', '--store', store]);
    expect(verified.code).toBe(0);
  });
});

describe('strata retention', () => {
  function settings(retention: Record<string, number>): string {
    const path = join(directory, 'settings.json');
    writeFileSync(path, JSON.stringify({ retention }));
    return path;
  }

  beforeEach(() =>
    seed([
      { id: 'alpha-old', tenant: 'alpha', daysAgo: 40 },
      { id: 'alpha-older', tenant: 'alpha', daysAgo: 90 },
      { id: 'alpha-new', tenant: 'alpha', daysAgo: 2 },
      { id: 'beta-old', tenant: 'beta', daysAgo: 400 },
      { id: 'gamma-old', tenant: 'gamma', daysAgo: 400 },
    ]),
  );

  it('lists with --dry-run the sessions idle past their tenant’s rule, longest idle first, and erases nothing', async () => {
    const listed = await strata([
      'retention',
      '--dry-run',
      '--store',
      store,
      '--settings',
      settings({ alpha: 30, beta: 365 }),
    ]);
    expect(listed.code).toBe(0);
    const lines = listed.out().trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^would erase alpha-older \(tenant alpha, last activity \S+, rule 30 days\)$/);
    expect(lines[1]).toMatch(/^would erase alpha-old /);
    expect(lines[2]).toMatch(/^would erase beta-old \(tenant beta, .*rule 365 days\)$/);
    expect(listed.err()).toContain('3 of 4 sessions would be erased (dry run)');
    for (const id of ['alpha-old', 'alpha-older', 'beta-old']) expect(await streamEvents(id)).toBe(3);
  });

  it('erases them with the rule as the reason, leaving the others', async () => {
    const path = settings({ alpha: 30, beta: 365 });
    const done = await strata(['retention', '--store', store, '--json'], { STRATA_SETTINGS: path });
    expect(done.code).toBe(0);
    const results = done
      .out()
      .trimEnd()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            sessionId: string;
            outcome: string;
            record: { actor: string; reason: string };
          },
      );
    expect(results.map((result) => [result.sessionId, result.outcome])).toEqual([
      ['alpha-older', 'erased'],
      ['alpha-old', 'erased'],
      ['beta-old', 'erased'],
    ]);
    expect(results[0]!.record.actor).toBe('strata-retention');
    expect(results[0]!.record.reason).toContain('retention.alpha = 30');
    for (const id of ['alpha-old', 'alpha-older', 'beta-old']) expect(await streamEvents(id)).toBe(0);
    for (const id of ['alpha-new', 'gamma-old']) expect(await streamEvents(id)).toBe(3);
    const second = await strata(['retention', '--store', store, '--dry-run'], { STRATA_SETTINGS: path });
    expect(second.out()).toBe('');
    expect(second.err()).toContain('0 of 1 sessions would be erased');
  });

  it('asks for a settings file and says when it has no rules', async () => {
    const none = await strata(['retention', '--store', store]);
    expect(none.code).toBe(2);
    expect(none.err()).toContain('--settings <file.json> or STRATA_SETTINGS');
    const empty = await strata(['retention', '--store', store, '--settings', settings({})]);
    expect(empty.code).toBe(0);
    expect(empty.err()).toContain('has no retention rules; nothing to do');
    expect(await streamEvents('alpha-old')).toBe(3);
  });
});
