import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildSessionContext, parseSessionFile, serializeSessionFile } from '@strata/session';
import { describeWithFixture, repositoryRoot } from '@strata/testing';

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function strata(cwd: string, env: Record<string, string>, ...args: string[]): Run {
  const result = spawnSync(process.execPath, [join(repositoryRoot, 'bin', 'strata.js'), ...args], {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function countEvents(databaseFile: string): number {
  const database = new Database(databaseFile, { readonly: true });
  try {
    return (database.prepare('SELECT count(*) AS count FROM events').get() as { count: number }).count;
  } finally {
    database.close();
  }
}

describeWithFixture('large-session.jsonl', 'the strata executable with a SQLite store', (fixture) => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'strata-e2e-store-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('imports, exports, rebuilds the context, re-imports as a no-op, verifies, and names a tampered event', () => {
    const databaseFile = join(directory, 'events.db');
    const env = { STRATA_STORE: `sqlite:${databaseFile}` };
    const parsed = parseSessionFile(readFileSync(fixture, 'utf8'), { mode: 'strict' });
    const sessionId = parsed.header.id;

    const imported = strata(directory, env, 'import', fixture);
    expect(imported.status).toBe(0);
    expect(imported.stdout).toBe(`${sessionId}\n`);
    expect(imported.stderr).toContain(`${parsed.entries.length} entries`);
    const eventCount = countEvents(databaseFile);
    expect(eventCount).toBe(parsed.entries.length + 1);

    const exported = strata(directory, env, 'export', sessionId);
    expect(exported.status).toBe(0);
    expect(exported.stdout).toBe(serializeSessionFile(parsed.header, parsed.entries));

    const context = strata(
      directory,
      env,
      'context',
      '--session',
      sessionId,
      '--json',
      '--tokenizer',
      'chars4',
    );
    expect(context.status).toBe(0);
    const printed = JSON.parse(context.stdout) as { messages: unknown[] };
    expect(printed.messages).toEqual(
      JSON.parse(JSON.stringify(buildSessionContext(parsed.entries, undefined).messages)),
    );

    const again = strata(directory, env, 'import', fixture);
    expect(again.status).toBe(0);
    expect(again.stderr).toContain('unchanged');
    expect(countEvents(databaseFile)).toBe(eventCount);

    const holds = strata(directory, env, 'verify', sessionId);
    expect(holds.status).toBe(0);
    expect(holds.stdout).toContain(`session-${sessionId}: chain holds (${eventCount} events`);

    const database = new Database(databaseFile);
    const target = database
      .prepare('SELECT event_id, data FROM events WHERE stream_revision = 500')
      .get() as { event_id: string; data: string };
    const altered = JSON.parse(target.data) as { entry: { timestamp: string } };
    altered.entry.timestamp = '2000-01-01T00:00:00.000Z';
    database
      .prepare('UPDATE events SET data = ? WHERE event_id = ?')
      .run(JSON.stringify(altered), target.event_id);
    database.close();

    const broken = strata(directory, env, 'verify', '--all');
    expect(broken.status).toBe(1);
    expect(broken.stdout).toContain(
      `session-${sessionId}: chain broken at revision 500, event ${target.event_id}: hash_mismatch`,
    );
  });

  it('exits 1 and writes nothing when one of the files has a bad line', () => {
    const databaseFile = join(directory, 'bad.db');
    const badFile = join(directory, 'bad.jsonl');
    writeFileSync(badFile, `${readFileSync(fixture, 'utf8')}{"type":"message",\n`);
    const result = strata(directory, {}, 'import', fixture, badFile, '--store', `sqlite:${databaseFile}`);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/bad\.jsonl:\d+: invalid JSON.*\(bad-json\); nothing was imported/);
    expect(result.stdout).toBe('');
    expect(existsSync(databaseFile) ? countEvents(databaseFile) : 0).toBe(0);
  });
});
