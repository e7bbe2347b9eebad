// What an auditor tripped over (issue 14.6), in headless Chromium against a running engine seeded
// from the pi fixture (an imported, untitled session that crosses midnight, with two compactions
// whose summaries are Markdown) and a small titled session: the sessions list at 1024 px, the
// integrity of each row, the search inside sessions, the title of an untitled session, dates in
// the tree, the before / after tab following the selected entry, rendered summaries, where each
// "tokens before" comes from, the raw events, and the download of the pi file.
import { readFileSync } from 'node:fs';
import { describeWithFixture, piFixturePath, session } from '@strata/testing';
import { ALPHA_KEY, TWO_TENANT_KEYS, startHttpEngine, type HttpHarness } from '../http/http-harness';
import { describeWithChromium, eventually, openBrowser, type BrowserSession } from './browser';

const SEEDING_TIMEOUT_MS = 300_000;

interface TreeAnswer {
  readonly nodes: readonly { readonly id: string; readonly type: string; readonly timestamp: string }[];
}

describeWithFixture('before-compaction.jsonl', 'the audit viewer after the auditor’s report', () => {
  describeWithChromium('the audit viewer at 1024 px in headless Chromium', () => {
    let engine: HttpHarness;
    let browser: BrowserSession;
    let sessionId: string;
    let compactionIds: string[];
    let firstEntryId: string;
    let eventCount: number;

    beforeAll(async () => {
      engine = await startHttpEngine({
        environment: { STRATA_API_KEYS: TWO_TENANT_KEYS },
        settings: { compaction: { enabled: false } },
      });
      const imported = await engine.request('POST', '/sessions/import', {
        rawBody: readFileSync(piFixturePath('before-compaction.jsonl'), 'utf8'),
        contentType: 'application/x-ndjson',
        key: ALPHA_KEY,
      });
      if (imported.status !== 201) throw new Error(`import answered ${imported.status}: ${imported.text}`);
      sessionId = (imported.body as { sessionId: string }).sessionId;
      const other = session({
        sessionId: 'billing-review',
        cwd: '/srv/billing/services/invoices/generators/monthly',
      }).user('Why are the invoices late?');
      await engine.seed(other.header, other.entries, ALPHA_KEY);
      const tree = (await engine.request('GET', `/sessions/${sessionId}/tree`, { key: ALPHA_KEY }))
        .body as TreeAnswer;
      firstEntryId = tree.nodes[0]?.id ?? '';
      compactionIds = tree.nodes.filter((node) => node.type === 'compaction').map((node) => node.id);
      if (compactionIds.length !== 2) throw new Error('the fixture has two compactions');
      const events = (
        await engine.request('GET', `/sessions/${sessionId}/events?limit=1000`, { key: ALPHA_KEY })
      ).body as { events: unknown[]; next: string | null };
      eventCount = events.events.length;
      browser = await openBrowser({ width: 1024, height: 800 });
      await browser.page.goto(`${engine.url}/ui`);
      await browser.page.locator('#key-dialog[open]').waitFor();
      await browser.page.fill('#key-input', ALPHA_KEY);
      await browser.page.keyboard.press('Enter');
    }, SEEDING_TIMEOUT_MS);

    afterAll(async () => {
      await browser?.close();
      await engine?.close();
    });

    it('keeps the working directory readable at 1024 px and shows each session’s integrity', async () => {
      const { page } = browser;
      const cwd = page.locator('tr[data-session-id="billing-review"] td.col-cwd');
      await cwd.waitFor();
      const measured = await page.evaluate<{ width: number; lines: number }>(`(() => {
        const cell = document.querySelector('tr[data-session-id="billing-review"] td.col-cwd');
        const box = cell.getBoundingClientRect();
        const line = parseFloat(getComputedStyle(cell).lineHeight) || 18;
        return { width: box.width, lines: Math.round(box.height / line) };
      })()`);
      expect(measured.width).toBeGreaterThanOrEqual(150);
      // 46 characters: two or three lines at most, never one letter per line.
      expect(measured.lines).toBeLessThanOrEqual(4);
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      for (const id of [sessionId, 'billing-review']) {
        await eventually(
          () => page.locator(`tr[data-session-id="${id}"] td.col-integrity`).getAttribute('data-state'),
          (state) => expect(state).toBe('verified'),
        );
      }
      await browser.screenshot('14-01-sessions-1024');
    });

    it('finds a session by what it says, not only by its title or directory', async () => {
      const { page } = browser;
      await page.fill('input.search', 'renderer');
      const found = page.locator(`tr[data-session-id="${sessionId}"] .search-match`);
      await found.waitFor();
      expect(await found.textContent()).toMatch(/renderer/i);
      expect(await page.locator('tbody tr').count()).toBe(1);
      await page.fill('input.search', 'invoices late');
      await page.locator('tr[data-session-id="billing-review"] .search-match').waitFor();
      expect(await page.locator('tbody tr').count()).toBe(1);
      await browser.screenshot('14-02-search-inside');
      await page.fill('input.search', '');
      await eventually(
        () => page.locator('tbody tr').count(),
        (count) => expect(count).toBe(2),
      );
    });

    it('names an untitled session once, and shows dates in the tree of a session that crosses midnight', async () => {
      const { page } = browser;
      await page.locator(`tr[data-session-id="${sessionId}"] a.session-link`).click();
      await page.locator('.session-heading h1.untitled').waitFor();
      const heading = (await page.locator('.session-heading').textContent()) ?? '';
      expect(heading.split(sessionId)).toHaveLength(2);
      expect(await page.locator('.session-heading h1').textContent()).toBe('Untitled session');
      await page.locator('.tree-row .row-time').first().waitFor();
      const times = await page.locator('.tree-row .row-time').allTextContents();
      expect(times.every((time) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(time))).toBe(true);
      // The session opens at its leaf, written after midnight; its first entry is of 8 December.
      await eventually(
        () => page.locator('.tree-row.is-leaf .row-time').textContent(),
        (time) => expect(time?.slice(0, 10)).toBe('2025-12-09'),
      );
      await page.locator('.tree-row.is-leaf').click();
      await page.keyboard.press('Home');
      await eventually(
        () => page.locator(`.tree-row[data-entry-id="${firstEntryId}"] .row-time`).textContent(),
        (time) => expect(time).toBe('2025-12-08 22:41:05'),
      );
      await browser.screenshot('14-03-tree-dates');
    });

    it('compares around the selected compaction, not the latest one', async () => {
      const { page } = browser;
      const [first, latest] = compactionIds;
      await page.evaluate(`location.hash = '#/session/${encodeURIComponent(sessionId)}/tree?entry=${first}'`);
      await page.locator(`.entry-detail code:text("${first}")`).waitFor();
      await page.locator('#tab-compare').click();
      await eventually(
        () => page.locator('.compare-panel').getAttribute('data-compaction-id'),
        (value) => expect(value).toBe(first),
      );
      await page.evaluate(
        `location.hash = '#/session/${encodeURIComponent(sessionId)}/compare?entry=${latest}'`,
      );
      await eventually(
        () => page.locator('.compare-panel').getAttribute('data-compaction-id'),
        (value) => expect(value).toBe(latest),
      );
      await page.evaluate(
        `location.hash = '#/session/${encodeURIComponent(sessionId)}/compare?entry=${first}'`,
      );
      await eventually(
        () => page.locator('.compare-panel').getAttribute('data-compaction-id'),
        (value) => expect(value).toBe(first),
      );
      const caption = page.locator('[data-figure="compare-tokens-before"] .figure-caption');
      await caption.waitFor();
      const counter = (
        (await engine.request('GET', `/sessions/${sessionId}/context`, { key: ALPHA_KEY })).body as {
          tokenCounter: string;
        }
      ).tokenCounter;
      expect(await caption.textContent()).toBe(`Tokens before (${counter} estimate)`);
      await browser.screenshot('14-04-compare-selected');
    });

    it('renders summaries as Markdown and says where the timeline’s tokens before come from', async () => {
      const { page } = browser;
      await page.locator('#tab-timeline').click();
      const item = page.locator(`.timeline-item[data-entry-id="${compactionIds[0]}"]`);
      await item.waitFor();
      expect(await item.locator('[data-figure="tokens-before"] .figure-caption').textContent()).toBe(
        'Tokens before (recorded: usage)',
      );
      await item.locator('details.summary-text > summary').click();
      const markdown = item.locator('.summary-markdown');
      expect(await markdown.locator('h3').first().textContent()).toBe(
        'Context Checkpoint: Coding Agent Refactoring',
      );
      expect(await markdown.locator('code').count()).toBeGreaterThan(0);
      expect(await markdown.textContent()).not.toContain('\\n');
      expect(await markdown.locator('li').count()).toBeGreaterThan(0);
      await markdown.scrollIntoViewIfNeeded();
      await browser.screenshot('14-05-markdown-summary');
    });

    it('lists the raw events with their hashes, chained, page by page', async () => {
      const { page } = browser;
      await page.locator('#tab-events').click();
      const rows = page.locator('.events-table tr.event-row');
      await rows.first().waitFor();
      expect(await rows.first().getAttribute('data-type')).toBe('SessionStarted');
      expect(await rows.count()).toBe(Math.min(200, eventCount));
      if (eventCount > 200) {
        await page.locator('[data-action="more-events"]').click();
        await eventually(
          () => rows.count(),
          (count) => expect(count).toBe(Math.min(400, eventCount)),
        );
      }
      expect(await page.locator('.events-table [data-chain="false"]').count()).toBe(0);
      expect(await rows.nth(1).locator('[data-chain]').getAttribute('data-chain')).toBe('true');
      expect(await rows.first().locator('td.hash').getAttribute('title')).toMatch(/^[0-9a-f]{64}$/);
      await browser.screenshot('14-06-raw-events');
    });

    it('downloads the pi file through the API key', async () => {
      const { page } = browser;
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator('.downloads [data-download=".jsonl"]').click(),
      ]);
      expect(download.suggestedFilename()).toBe(`${sessionId}.jsonl`);
      const path = await download.path();
      const firstLine = readFileSync(path, 'utf8').split('\n')[0] ?? '';
      expect(JSON.parse(firstLine)).toMatchObject({ type: 'session', id: sessionId });
      expect(browser.pageErrors).toEqual([]);
    });

    it('keeps the sessions list, its integrity column included, within a phone-sized screen', async () => {
      const { page } = browser;
      await page.setViewportSize({ width: 390, height: 844 });
      await page.evaluate(`location.hash = '#/'`);
      const integrity = page.locator(`tr[data-session-id="${sessionId}"] td.col-integrity`);
      await eventually(
        () => integrity.getAttribute('data-state'),
        (state) => expect(state).toBe('verified'),
      );
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await browser.screenshot('14-07-sessions-phone');
      expect(browser.pageErrors).toEqual([]);
    });
  });
});
