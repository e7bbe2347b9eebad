// The viewer's integrity and erasure views (issue 14.6) in headless Chromium against a running
// engine whose answers are the real ones: a session that holds, one whose tail an intruder cut
// from the SQLite file (the list and the session say what is missing), and one erased by an admin
// key (gone from the list, listed with its record, and opened it shows the record alone); the
// events file and the anchors downloaded through the API key.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { session } from '@strata/testing';
import { ALPHA_KEY, AUDITOR_KEY, BETA_KEY, startHttpEngine, type HttpHarness } from '../http/http-harness';
import { describeWithChromium, eventually, openBrowser, type BrowserSession } from './browser';

const ADMIN_KEY = 'alpha-admin-0123456789abcd';
const KEYS = `alpha:${ALPHA_KEY},beta:${BETA_KEY},alpha:${AUDITOR_KEY}:read,alpha:dpo:${ADMIN_KEY}:admin`;

/** Deletes the stream's last event, as someone with write access to the store file could. */
function deleteLastEvent(storeFile: string, streamId: string): void {
  const database = new Database(storeFile);
  try {
    database
      .prepare(
        'DELETE FROM events WHERE stream_id = ? AND stream_revision = (SELECT max(stream_revision) FROM events WHERE stream_id = ?)',
      )
      .run(streamId, streamId);
  } finally {
    database.close();
  }
}

describeWithChromium('the audit viewer’s integrity and erasure views in headless Chromium', () => {
  let engine: HttpHarness;
  let browser: BrowserSession;

  beforeAll(async () => {
    engine = await startHttpEngine({ environment: { STRATA_API_KEYS: KEYS } });
    for (const [sessionId, turns] of [
      ['sound-session', 2],
      ['cut-session', 3],
      ['doomed-session', 2],
    ] as const) {
      const written = session({ sessionId, cwd: `/work/${sessionId}` }).editTurns(turns);
      await engine.seed(written.header, written.entries, ALPHA_KEY);
    }
    deleteLastEvent(join(engine.directory, 'strata.db'), 'session-cut-session');
    const erased = await engine.request('DELETE', '/sessions/doomed-session', {
      key: ADMIN_KEY,
      body: { reason: 'GDPR request 41' },
    });
    if (erased.status !== 200) throw new Error(`erasure answered ${erased.status}: ${erased.text}`);
    browser = await openBrowser({ width: 1280, height: 860 });
    await browser.page.goto(`${engine.url}/ui`);
    await browser.page.locator('#key-dialog[open]').waitFor();
    await browser.page.fill('#key-input', AUDITOR_KEY);
    await browser.page.keyboard.press('Enter');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await engine?.close();
  });

  it('states each listed session’s integrity as the engine verified it, naming what is missing', async () => {
    const { page } = browser;
    const cell = (sessionId: string) => page.locator(`tr[data-session-id="${sessionId}"] td.col-integrity`);
    await eventually(
      () => cell('sound-session').getAttribute('data-state'),
      (state) => expect(state).toBe('verified'),
    );
    expect(await cell('sound-session').getAttribute('title')).toMatch(
      /^✓ Integrity verified: \d+ events, head revision \d+, head [0-9a-f]{16}…, \d+ anchors? matched$/,
    );
    await eventually(
      () => cell('cut-session').getAttribute('data-state'),
      (state) => expect(state).toBe('broken'),
    );
    const cut = (await cell('cut-session').getAttribute('title')) ?? '';
    expect(cut).toContain('the store records revision');
    expect(cut).toContain('the last 1 event is missing');
    expect(await cell('cut-session').textContent()).toBe('✗ broken');
    await browser.screenshot('14-08-integrity-list');
  });

  it('leaves the erased session out of the list and lists it with its record', async () => {
    const { page } = browser;
    expect(await page.locator('tr[data-session-id="doomed-session"]').count()).toBe(0);
    const record = page.locator('.erasure-record[data-session-id="doomed-session"]');
    await record.waitFor();
    const text = (await record.textContent()) ?? '';
    expect(text).toMatch(
      /^doomed-session erased at .+ by dpo: GDPR request 41 \(\d+ events, head revision \d+, hash [0-9a-f]{16}…\)$/,
    );
    expect(await page.locator('.erasures h2').textContent()).toBe('Erased sessions (1)');
  });

  it('opens an erased session as its record alone', async () => {
    const { page } = browser;
    await page.evaluate(`location.hash = '#/session/doomed-session/tree'`);
    await page.locator('[data-erased="true"]').waitFor();
    const record = page.locator('.session-view .erasure-record');
    expect(await record.textContent()).toMatch(
      /^This session was erased at .+ by dpo: GDPR request 41 \(\d+ events, head revision \d+, hash [0-9a-f]{16}…\)\. Its events are gone; this record is what remains\.$/,
    );
    expect(await page.locator('.downloads').isVisible()).toBe(false);
    expect(await page.locator('.tabs').isVisible()).toBe(false);
    await browser.screenshot('14-09-erased-session');
  });

  it('shows a cut session’s finding, and downloads the events file and the anchors of a sound one', async () => {
    const { page } = browser;
    await page.evaluate(`location.hash = '#/session/cut-session/tree'`);
    await eventually(
      () => page.locator('.integrity').getAttribute('data-state'),
      (state) => expect(state).toBe('broken'),
    );
    expect(await page.locator('.integrity .integrity-broken').textContent()).toContain(
      'the last 1 event is missing',
    );
    await page.evaluate(`location.hash = '#/session/sound-session/tree'`);
    await eventually(
      () => page.locator('.integrity').getAttribute('data-state'),
      (state) => expect(state).toBe('verified'),
    );
    const download = async (name: string): Promise<string[]> => {
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        page.locator(`.downloads [data-download="${name}"]`).click(),
      ]);
      expect(file.suggestedFilename()).toBe(`sound-session${name}`);
      return readFileSync(await file.path(), 'utf8')
        .split('\n')
        .filter((line) => line !== '');
    };
    const events = (await download('.events.jsonl')).map(
      (line) => JSON.parse(line) as Record<string, unknown>,
    );
    expect(events.length).toBeGreaterThan(2);
    expect(events[0]).toMatchObject({ streamId: 'session-sound-session', revision: '0' });
    const anchors = (await download('.anchors.jsonl')).map(
      (line) => JSON.parse(line) as Record<string, unknown>,
    );
    expect(anchors.length).toBeGreaterThan(0);
    expect(anchors[0]).toMatchObject({ stream: 'session-sound-session' });
    expect(typeof anchors[0]!['signature']).toBe('string');
    expect(browser.pageErrors).toEqual([]);
  });
});
