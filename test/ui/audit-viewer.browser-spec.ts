// End to end in headless Chromium: the audit viewer served by a running engine (SQLite store,
// the offline summariser, two tenants by API key) seeded from both pi fixture files. A user gives
// the key, opens a session, unfolds a side branch of the tree, selects an entry, compares the
// contexts across a compaction, reads who asked for a summary and with which instructions, and
// sees a compaction made through the API arrive live.
// Screenshots of each step go to test-artifacts/ui/.
import { readFileSync } from 'node:fs';
import { OFFLINE_SUMMARIZER_NAME } from '@strata/summarizer';
import { describeWithFixture, piFixturePath, session } from '@strata/testing';
import {
  ALPHA_KEY,
  BETA_KEY,
  TWO_TENANT_KEYS,
  startHttpEngine,
  type HttpHarness,
} from '../http/http-harness';
import { hashApiKey } from '../../apps/engine/src/tenancy/api-keys';
import { describeWithChromium, eventually, openBrowser, type BrowserSession } from './browser';

interface TreeAnswer {
  readonly nodes: readonly { readonly id: string }[];
  readonly leafId: string;
}

/** Importing the fixture takes seconds, more on a busy machine. */
const SEEDING_TIMEOUT_MS = 300_000;

/** Entries left behind by the navigation that makes the side branch. */
const SIDE_BRANCH_LENGTH = 30;

const BRANCH_INSTRUCTIONS = 'Only what was tried on the side branch, and why it was left.';
const COMPACTION_INSTRUCTIONS = 'Keep every file name and the failing test.';
/** How the audit names tenant alpha's key, configured without a name. */
const ALPHA_ACTOR = `key:${hashApiKey(ALPHA_KEY).slice(0, 12)}`;

async function importFixture(engine: HttpHarness, name: string, key: string): Promise<string> {
  const answer = await engine.request('POST', '/sessions/import', {
    rawBody: readFileSync(piFixturePath(name), 'utf8'),
    contentType: 'application/x-ndjson',
    key,
  });
  if (answer.status !== 201) throw new Error(`import of ${name} answered ${answer.status}: ${answer.text}`);
  return (answer.body as { sessionId: string }).sessionId;
}

describeWithFixture('before-compaction.jsonl', 'the audit viewer on a seeded engine', () => {
  describeWithChromium('the audit viewer in headless Chromium', () => {
    let engine: HttpHarness;
    let browser: BrowserSession;
    let sessionId: string;
    let largeSessionId: string;
    let branchTargetId: string;
    let sideBranchHeadId: string;

    beforeAll(async () => {
      engine = await startHttpEngine({
        environment: { STRATA_API_KEYS: TWO_TENANT_KEYS },
        // No automatic compaction: the compactions the page shows are the imported ones and the
        // one the test asks for.
        settings: {
          compaction: { enabled: false, keepRecentTokens: 4_000 },
          branchSummary: { enabled: true },
        },
      });
      sessionId = await importFixture(engine, 'before-compaction.jsonl', ALPHA_KEY);
      largeSessionId = await importFixture(engine, 'large-session.jsonl', ALPHA_KEY);
      const other = session({ sessionId: 'beta-session' }).user('Only tenant beta may see this.');
      await engine.seed(other.header, other.entries, BETA_KEY);
      const tree = (await engine.request('GET', `/sessions/${sessionId}/tree`, { key: ALPHA_KEY }))
        .body as TreeAnswer;
      const target = tree.nodes.at(-SIDE_BRANCH_LENGTH - 1);
      const sideHead = tree.nodes.at(-SIDE_BRANCH_LENGTH);
      if (target === undefined || sideHead === undefined) throw new Error('the fixture is too short');
      branchTargetId = target.id;
      sideBranchHeadId = sideHead.id;
      const navigated = await engine.request('POST', `/sessions/${sessionId}/navigate`, {
        body: { targetId: branchTargetId, summarize: true, customInstructions: BRANCH_INSTRUCTIONS },
        key: ALPHA_KEY,
      });
      expect(navigated.body).toMatchObject({
        outcome: 'navigated',
        summary: { entry: { type: 'branch_summary' } },
      });
      browser = await openBrowser();
    }, SEEDING_TIMEOUT_MS);

    afterAll(async () => {
      await browser?.close();
      await engine?.close();
    });

    it('asks for the API key and lists only the sessions of its tenant, with search', async () => {
      const { page } = browser;
      await page.goto(`${engine.url}/ui`);
      await page.locator('#key-dialog[open]').waitFor();
      await page.fill('#key-input', ALPHA_KEY);
      await page.keyboard.press('Enter');
      const row = page.locator(`tr[data-session-id="${sessionId}"]`);
      await row.waitFor();
      await page.locator(`tr[data-session-id="${largeSessionId}"]`).waitFor();
      expect(await page.locator('tbody tr').count()).toBe(2);
      expect(await page.evaluate("sessionStorage.getItem('strata.apiKey')")).toBe(ALPHA_KEY);
      await eventually(
        () => row.locator('td[data-caption="Compactions"]').textContent(),
        (value) => expect(value).toBe('2'),
      );
      await browser.screenshot('01-sessions');

      // Words no session says, in no title or directory (the search looks inside the sessions too).
      await page.fill('input.search', 'zqxjv nowhere');
      await eventually(
        () => page.locator('.list-status').textContent(),
        (value) => expect(value).toContain('0 sessions'),
      );
      await page.fill('input.search', 'pi-mono');
      await row.waitFor();
      await eventually(
        () => page.locator('tbody tr').count(),
        (value) => expect(value).toBe(2),
      );
    });

    it('opens a session on its tree, with the side branch folded and the current leaf marked', async () => {
      const { page } = browser;
      await page.locator(`tr[data-session-id="${sessionId}"] a.session-link`).click();
      await page.locator('.tree-row.is-leaf').waitFor();
      expect(await page.locator('.tree-row.is-leaf').getAttribute('data-type')).toBe('branch_summary');
      const folded = page.locator(`.tree-row[data-entry-id="${sideBranchHeadId}"]`);
      expect(await folded.getAttribute('aria-expanded')).toBe('false');
      expect(await folded.locator('.hidden-count').textContent()).toBe(`+${SIDE_BRANCH_LENGTH - 1}`);
      await eventually(
        () => page.locator('.integrity').getAttribute('data-ok'),
        (value) => expect(value).toBe('true'),
      );
      await browser.screenshot('02-session-tree');
    });

    it('unfolds the side branch with the keyboard', async () => {
      const { page } = browser;
      const head = page.locator(`.tree-row[data-entry-id="${sideBranchHeadId}"]`);
      await head.click();
      await page.keyboard.press('ArrowRight');
      await eventually(
        () => head.getAttribute('aria-expanded'),
        (value) => expect(value).toBe('true'),
      );
      expect(await page.locator('.tree-list :focus').count()).toBe(1);
      await page.keyboard.press('ArrowDown');
      const focused = page.locator('.tree-row:focus');
      expect(await focused.getAttribute('aria-level')).toBe('2');
      expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
      await browser.screenshot('03-tree-unfolded');
    });

    it('selects an entry with Enter and shows its JSON, then what the model saw there', async () => {
      const { page } = browser;
      const focused = page.locator('.tree-row:focus');
      const entryId = await focused.getAttribute('data-entry-id');
      await page.keyboard.press('Enter');
      await eventually(
        () => page.locator('.entry-detail pre.json').textContent(),
        (value) => expect(value).toContain(`"id": "${entryId}"`),
      );
      expect(page.url()).toContain(`entry=${encodeURIComponent(entryId ?? '')}`);
      await browser.screenshot('04-entry-selected');

      await page.locator('[data-action="context-at-entry"]').click();
      const context = page.locator(`#panel-context .context-view[data-leaf-id="${entryId}"]`);
      await context.waitFor();
      expect(
        Number(await context.locator('[data-figure="messages"] .figure-value').textContent()),
      ).toBeGreaterThan(0);
      expect(await context.locator('.context-row').count()).toBeGreaterThan(0);
    });

    it('shows who asked for the branch summary and the instructions it was given', async () => {
      const { page } = browser;
      await page.locator('#tab-timeline').click();
      const summary = page.locator('.timeline-item[data-kind="branch_summary"][data-outcome="completed"]');
      await summary.waitFor();
      expect(await summary.locator('[data-field="instructions"] .instructions-text').textContent()).toBe(
        BRANCH_INSTRUCTIONS,
      );
      expect(await summary.locator('[data-figure="actor"] .figure-value').textContent()).toBe(ALPHA_ACTOR);
      await summary.scrollIntoViewIfNeeded();
      await browser.screenshot('05a-branch-summary-instructions');
    });

    it('compares the contexts before and after a compaction side by side', async () => {
      const { page } = browser;
      await page.locator('#tab-timeline').click();
      const imported = page.locator('.timeline-item[data-outcome="imported"][data-kind="compaction"]');
      await eventually(
        () => imported.count(),
        (value) => expect(value).toBe(2),
      );
      // An imported compaction has no recorded attempt; its "tokens after" is measured from the
      // context at the compaction entry, the figure the comparison shows too.
      const timelineTokensAfter = await eventually(
        () => imported.first().locator('[data-figure="tokens-after"] .figure-value').textContent(),
        (value) => expect(value).toMatch(/^[\d,]+$/),
      );
      await imported.first().locator('[data-action="compare"]').click();
      const figures = page.locator('.compare-figures');
      await figures.locator('[data-figure="compare-tokens-after"]').waitFor();
      const number = async (name: string) =>
        Number(
          (await figures.locator(`[data-figure="${name}"] .figure-value`).textContent())?.replaceAll(',', ''),
        );
      expect(await number('compare-tokens-after')).toBeLessThan(await number('compare-tokens-before'));
      expect(await number('compare-tokens-after')).toBe(Number(timelineTokensAfter?.replaceAll(',', '')));
      expect(await number('compare-summarised')).toBeGreaterThan(0);
      const after = page.locator('[data-side="after"] .context-row').first();
      expect(await after.getAttribute('class')).toContain('role-compactionSummary');
      expect(await page.locator('[data-side="before"] .context-row.mark-summarised').count()).toBeGreaterThan(
        0,
      );
      await browser.screenshot('05b-compare-compaction');
    });

    it('shows a compaction made through the API as it happens, without a reload', async () => {
      const { page } = browser;
      await page.locator('#tab-timeline').click();
      await page.evaluate('window.stillTheSamePage = true');
      await eventually(
        () => page.locator('#live-status').getAttribute('data-state'),
        (value) => expect(value).toBe('live'),
      );
      const compacted = await engine.request('POST', `/sessions/${sessionId}/compact`, {
        body: { customInstructions: COMPACTION_INSTRUCTIONS, force: true },
        key: ALPHA_KEY,
        headers: { 'x-strata-actor': 'reviewer@example.com' },
      });
      const result = compacted.body as { outcome: string; entry: { id: string } };
      expect(result.outcome).toBe('completed');

      const fresh = page.locator(`.timeline-item.is-fresh[data-entry-id="${result.entry.id}"]`);
      await fresh.waitFor();
      expect(await fresh.getAttribute('data-outcome')).toBe('completed');
      expect(await fresh.locator('[data-field="force"]').textContent()).toBe('forced');
      expect(await page.locator('.timeline-item [data-field="force"]').count()).toBe(1);
      expect(await fresh.locator('[data-figure="model"] .figure-value').textContent()).toBe(
        OFFLINE_SUMMARIZER_NAME,
      );
      expect(await fresh.locator('[data-field="instructions"] .instructions-text').textContent()).toBe(
        COMPACTION_INSTRUCTIONS,
      );
      expect(await fresh.locator('[data-figure="actor"] .figure-value').textContent()).toBe(
        `${ALPHA_ACTOR} for reviewer@example.com`,
      );
      const historyCall = fresh.locator('.summary-call[data-purpose="history"]');
      expect(await historyCall.count()).toBe(1);
      expect(await historyCall.textContent()).toMatch(
        new RegExp(`^history · ${OFFLINE_SUMMARIZER_NAME} → ${OFFLINE_SUMMARIZER_NAME} · `),
      );
      expect(await page.evaluate('window.stillTheSamePage')).toBe(true);
      await eventually(
        () => page.locator('[data-figure="compactions"] .figure-value').textContent(),
        (value) => expect(value).toBe('3'),
      );
      await fresh.scrollIntoViewIfNeeded();
      await browser.screenshot('06-live-compaction');
    });

    it('stays readable on a phone-sized screen', async () => {
      const { page } = browser;
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('#tab-tree').click();
      await page.getByRole('button', { name: 'Go to current leaf' }).click();
      const leaf = page.locator('.tree-row.is-leaf[data-type="compaction"]');
      await leaf.waitFor();
      await page.locator('.entry-detail pre.json').waitFor();
      await leaf.scrollIntoViewIfNeeded();
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await browser.screenshot('07-narrow-tree');
      expect(browser.pageErrors).toEqual([]);
    });
  });
});
