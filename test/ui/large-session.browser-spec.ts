// End to end in headless Chromium: a session of 10,100 entries (a chain of 10,000 and a side
// branch of 100) stays a windowed list in the page: the tree and the context of 10,000 messages
// keep fewer than 200 rows in the DOM wherever the user moves. The engine runs single-tenant
// here, so the page asks for no key.
import { serializeSessionFile, type SessionEntry } from '@strata/session';
import { ReadModels } from '../../apps/engine/src/read-side/read-models.service';
import { startHttpEngine, type HttpHarness } from '../http/http-harness';
import { describeWithChromium, eventually, openBrowser, type BrowserSession } from './browser';

const SESSION_ID = 'ten-thousand';
const CHAIN_LENGTH = 10_000;
const SIDE_BRANCH_LENGTH = 100;
const SIDE_BRANCH_FROM = 5_000;
const MAX_ROWS_IN_DOM = 200;
const TREE_ROW_HEIGHT = 28;
const ENTRIES = CHAIN_LENGTH + SIDE_BRANCH_LENGTH;
/**
 * The set-up's ceiling, from its work: starting the engine and Chromium (about 3 s on a quiet
 * 2-core machine, 5 s beside `stress --cpu 2`), then importing and projecting every entry (about
 * 0.5 ms an entry when quiet, 2 ms under that stress); 15 ms an entry leaves room for more load.
 */
const SET_UP_TIMEOUT_MS = 30_000 + ENTRIES * 15;

/** User requests and shell runs (no assistant turns, so no automatic compaction is considered). */
function message(id: string, parentId: string | null, position: number): SessionEntry {
  const timestamp = new Date(Date.UTC(2025, 0, 1) + position * 1_000).toISOString();
  return position % 2 === 0
    ? {
        type: 'message',
        id,
        parentId,
        timestamp,
        message: { role: 'user', content: `Step ${position}`, timestamp: position },
      }
    : {
        type: 'message',
        id,
        parentId,
        timestamp,
        message: {
          role: 'bashExecution',
          command: `ls ${position}`,
          output: 'ok',
          cancelled: false,
          truncated: false,
          timestamp: position,
        },
      };
}

function largeSession(): { chain: SessionEntry[]; side: SessionEntry[] } {
  const chain: SessionEntry[] = [];
  for (let position = 0; position < CHAIN_LENGTH; position += 1) {
    chain.push(message(`c${position}`, position === 0 ? null : `c${position - 1}`, position));
  }
  const side: SessionEntry[] = [];
  for (let position = 0; position < SIDE_BRANCH_LENGTH; position += 1) {
    const parentId = position === 0 ? `c${SIDE_BRANCH_FROM}` : `s${position - 1}`;
    side.push(message(`s${position}`, parentId, SIDE_BRANCH_FROM + position));
  }
  return { chain, side };
}

describeWithChromium('the audit viewer on a session of 10,100 entries', () => {
  let engine: HttpHarness;
  let browser: BrowserSession;

  const rowsInDom = (selector: string) => browser.page.locator(selector).count();

  beforeAll(async () => {
    engine = await startHttpEngine();
    const { chain, side } = largeSession();
    // Parents before children, and the chain's last entry last: it is the imported session's leaf.
    const entries = [...chain.slice(0, SIDE_BRANCH_FROM + 1), ...side, ...chain.slice(SIDE_BRANCH_FROM + 1)];
    const imported = await engine.request('POST', '/sessions/import', {
      rawBody: serializeSessionFile(
        { type: 'session', id: SESSION_ID, timestamp: '2025-01-01T00:00:00.000Z', cwd: '/work/large' },
        entries,
      ),
      contentType: 'application/x-ndjson',
    });
    if (imported.status !== 201) throw new Error(`import answered ${imported.status}: ${imported.text}`);
    // The page reads the session at once, and a read waits only briefly for the read models: they
    // must hold all 10,100 entries before it opens.
    const readModels = engine.app.get(ReadModels);
    await readModels.runner.waitForPosition(await readModels.sessionHead(SESSION_ID));
    browser = await openBrowser();
  }, SET_UP_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await engine?.close();
  });

  it('renders only the rows in view of the tree, at the leaf, at the top and in the middle', async () => {
    const { page } = browser;
    await page.goto(`${engine.url}/ui#/session/${SESSION_ID}/tree`);
    const leaf = page.locator(`.tree-row.is-leaf[data-entry-id="c${CHAIN_LENGTH - 1}"]`);
    await leaf.waitFor();
    await eventually(
      () => page.locator('.tree-panel [role="status"]').textContent(),
      (text) => expect(text).toContain('10,100 entries'),
    );
    expect(await rowsInDom('[role="treeitem"]')).toBeLessThan(MAX_ROWS_IN_DOM);
    expect(await page.locator('.tree-list').getAttribute('role')).toBe('tree');
    await browser.screenshot('08-large-session-tree');

    await leaf.click();
    await page.keyboard.press('Home');
    await page.locator('.tree-row[data-entry-id="c0"]:focus').waitFor();
    expect(await rowsInDom('[role="treeitem"]')).toBeLessThan(MAX_ROWS_IN_DOM);

    for (let page_ = 0; page_ < 20; page_ += 1) await page.keyboard.press('PageDown');
    const focusedIndex = Number(await page.locator('.tree-row:focus').getAttribute('data-index'));
    expect(focusedIndex).toBeGreaterThan(100);
    expect(await rowsInDom('[role="treeitem"]')).toBeLessThan(MAX_ROWS_IN_DOM);

    const sideHead = page.locator('.tree-row[data-entry-id="s0"]');
    const scrollTop = (SIDE_BRANCH_FROM - 5) * TREE_ROW_HEIGHT;
    await page.locator('.tree-list').evaluate((list: { scrollTop: number }, top: number) => {
      list.scrollTop = top;
    }, scrollTop);
    await sideHead.waitFor();
    expect(await sideHead.getAttribute('aria-expanded')).toBe('false');
    expect(await rowsInDom('[role="treeitem"]')).toBeLessThan(MAX_ROWS_IN_DOM);
  });

  it('renders only the messages in view of a context of 10,000 messages', async () => {
    const { page } = browser;
    await page.locator('#tab-context').click();
    const messages = page.locator('#panel-context [data-figure="messages"] .figure-value');
    await eventually(
      () => messages.textContent(),
      (text) => expect(text).toBe('10,000'),
    );
    expect(await rowsInDom('#panel-context .context-row')).toBeGreaterThan(5);
    expect(await rowsInDom('#panel-context .context-row')).toBeLessThan(MAX_ROWS_IN_DOM);
    await page.locator('#panel-context .context-row').first().click();
    await page.keyboard.press('End');
    await page.locator('#panel-context .context-row[data-entry-id="c9999"]:focus').waitFor();
    expect(await rowsInDom('#panel-context .context-row')).toBeLessThan(MAX_ROWS_IN_DOM);
    await browser.screenshot('09-large-session-context');
    expect(browser.pageErrors).toEqual([]);
  });
});
