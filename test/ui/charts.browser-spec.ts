// The viewer's charts in headless Chromium against a running engine: a session whose answers
// report their usage, compacted twice through the API and left by a navigation with a branch
// summary. Its page draws one point per answer with the values GET /sessions/{id}/context-sizes
// answers, and the two compactions and the branch summary between the turns they came after; the
// sessions page draws the compactions of the day and the tenant's tokens as the API counts them.
// A hostile session title and model name are shown as text, never run.
import type { Locator } from 'playwright-core';
import type { SessionEntry } from '@strata/session';
import { session } from '@strata/testing';
import { startHttpEngine, type HttpHarness } from '../http/http-harness';
import { describeWithChromium, eventually, openBrowser, type BrowserSession } from './browser';

const SESSION_ID = 'charted-session';
const HOSTILE_TITLE = '<img src=x onerror="window.__xss = 1">';
const HOSTILE_MODEL = '<svg onload="window.__xss = 2"></svg>';

interface Sizes {
  readonly turns: readonly {
    contextTokens: number;
    contextWindow: number;
    threshold: number;
    entryId: string;
  }[];
  readonly marks: readonly { type: string; turn: number; entryId: string }[];
}

/** The attributes of every element the locator finds (the specs' tsconfig knows no DOM types). */
async function attributesOf<Name extends string>(
  locator: Locator,
  names: readonly Name[],
): Promise<Record<Name, string | null>[]> {
  const found: Record<Name, string | null>[] = [];
  for (const item of await locator.all()) {
    const values = await Promise.all(names.map((name) => item.getAttribute(name)));
    found.push(
      Object.fromEntries(names.map((name, index) => [name, values[index] ?? null])) as Record<
        Name,
        string | null
      >,
    );
  }
  return found;
}

const usage = (context: number) => ({
  input: context - 500,
  output: 500,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: context,
});

describeWithChromium('the audit viewer’s charts in headless Chromium', () => {
  let engine: HttpHarness;
  let browser: BrowserSession;
  let sizes: Sizes;

  async function request(method: string, path: string, body?: unknown) {
    const answer = await engine.request(method, path, body === undefined ? {} : { body });
    if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text}`);
    return answer.body as Record<string, unknown>;
  }

  async function compact(): Promise<string> {
    const answer = await request('POST', `/sessions/${SESSION_ID}/compact`, {});
    expect(answer).toMatchObject({ outcome: 'completed' });
    return (answer['entry'] as { id: string }).id;
  }

  beforeAll(async () => {
    engine = await startHttpEngine({
      settings: {
        compaction: { enabled: false, reserveTokens: 20_000, keepRecentTokens: 200 },
        branchSummary: { enabled: true },
        models: { defaultContextWindow: 100_000 },
      },
    });
    await request('POST', '/sessions', { sessionId: SESSION_ID, cwd: '/work/charts', title: HOSTILE_TITLE });
    const first = session({ sessionId: SESSION_ID });
    for (const [turn, context] of [10_000, 20_000, 30_000, 40_000].entries()) {
      first.user(`question ${turn} `.repeat(30)).assistant(`answer ${turn} `.repeat(30), {
        usage: usage(context),
        ...(turn === 2 ? { provider: 'hostile', model: HOSTILE_MODEL } : {}),
      });
    }
    await request('POST', `/sessions/${SESSION_ID}/entries`, { entries: first.entries });
    const firstCompaction = await compact();
    const second = session({ sessionId: SESSION_ID, idPrefix: 'g', baseTime: '2026-01-02T00:00:00.000Z' });
    for (const [turn, context] of [15_000, 25_000, 85_000].entries()) {
      second
        .user(`more ${turn} `.repeat(30))
        .assistant(`reply ${turn} `.repeat(30), { usage: usage(context) });
    }
    const [head, ...rest] = second.entries;
    const entries: SessionEntry[] = [{ ...head!, parentId: firstCompaction }, ...rest];
    await request('POST', `/sessions/${SESSION_ID}/entries`, { entries });
    await compact();
    const navigated = await request('POST', `/sessions/${SESSION_ID}/navigate`, {
      targetId: entries[1]!.id,
      summarize: true,
    });
    expect(navigated).toMatchObject({ outcome: 'navigated', summary: { entry: { type: 'branch_summary' } } });
    sizes = (await request('GET', `/sessions/${SESSION_ID}/context-sizes`)) as unknown as Sizes;
    browser = await openBrowser({ width: 1280, height: 1000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await engine?.close();
  });

  it('draws one point per answer with the context, window and threshold the API answers', async () => {
    const { page } = browser;
    await page.goto(`${engine.url}/ui#/session/${SESSION_ID}/tree`);
    await page.locator('.context-chart[data-turns="7"]').waitFor();
    expect(sizes.turns.map((turn) => turn.contextTokens)).toEqual([
      10_000, 20_000, 30_000, 40_000, 15_000, 25_000, 85_000,
    ]);
    const points = (
      await attributesOf(page.locator('.context-chart circle.chart-point'), [
        'data-tokens',
        'data-window',
        'data-threshold',
        'data-entry-id',
        'class',
      ])
    ).map((point) => ({
      contextTokens: Number(point['data-tokens']),
      contextWindow: Number(point['data-window']),
      threshold: Number(point['data-threshold']),
      entryId: point['data-entry-id'],
      over: point.class === 'chart-point over',
    }));
    expect(points).toEqual(
      sizes.turns.map((turn) => ({
        contextTokens: turn.contextTokens,
        contextWindow: 100_000,
        threshold: 80_000,
        entryId: turn.entryId,
        over: turn.contextTokens > 80_000,
      })),
    );
    await browser.screenshot('charts-01-session');
  });

  it('marks both compactions and the branch summary between the turns they came after', async () => {
    const { page } = browser;
    expect(sizes.marks.map((mark) => [mark.type, mark.turn])).toEqual([
      ['compaction', 4],
      ['compaction', 7],
      ['branch_summary', 7],
    ]);
    const groups = await attributesOf(page.locator('.context-chart g.chart-mark'), [
      'data-type',
      'data-after-turn',
      'data-entry-id',
    ]);
    const lines = await attributesOf(page.locator('.context-chart g.chart-mark line'), ['x1']);
    const marks = groups.map((group, position) => ({
      type: group['data-type'],
      turn: Number(group['data-after-turn']),
      entryId: group['data-entry-id'],
      x: Number(lines[position]?.x1),
    }));
    expect(marks.map(({ type, turn, entryId }) => ({ type, turn, entryId }))).toEqual(
      sizes.marks.map(({ type, turn, entryId }) => ({ type, turn, entryId })),
    );
    const xs = (await attributesOf(page.locator('.context-chart circle.chart-point'), ['cx'])).map((point) =>
      Number(point.cx),
    );
    for (const mark of marks) {
      expect(mark.x).toBeGreaterThan(xs[mark.turn - 1]!);
      if (mark.turn < xs.length) expect(mark.x).toBeLessThan(xs[mark.turn]!);
    }
    await page.locator(`.context-chart g.chart-mark[data-entry-id="${sizes.marks[0]!.entryId}"]`).click();
    await eventually(
      () => page.evaluate('location.hash'),
      (hash) => expect(hash).toContain(`entry=${sizes.marks[0]!.entryId}`),
    );
  });

  it('draws the compactions per day and the tokens by tenant as the API counts them', async () => {
    const { page } = browser;
    await page.goto(`${engine.url}/ui#/`);
    await page.locator('.compactions-chart g.chart-day').first().waitFor();
    const days = (
      await attributesOf(page.locator('.compactions-chart g.chart-day'), ['data-day', 'data-count'])
    ).map((day) => [day['data-day'], Number(day['data-count'])]);
    const attempts = (await request('GET', '/attempts?kind=compaction&outcome=completed')) as {
      items: readonly { endedAt: string }[];
    };
    expect(attempts.items).toHaveLength(2);
    expect(days).toEqual([[attempts.items[0]!.endedAt.slice(0, 10), 2]]);
    const list = (await request('GET', '/sessions')) as {
      items: readonly { usage: { totalTokens: number } }[];
    };
    const tenant = page.locator('.tenants-chart g.chart-tenant');
    expect(await tenant.getAttribute('data-tenant')).toBe('default');
    expect(Number(await tenant.getAttribute('data-total'))).toBe(
      list.items.reduce((sum, item) => sum + item.usage.totalTokens, 0),
    );
    expect(await tenant.locator('text.chart-name').textContent()).toBe('default');
    await browser.screenshot('charts-02-sessions');
  });

  it('shows a hostile session title and model name as text, and runs nothing of them', async () => {
    const { page } = browser;
    await page.locator(`tr[data-session-id="${SESSION_ID}"] a.session-link`).waitFor();
    expect(await page.locator(`tr[data-session-id="${SESSION_ID}"] a.session-link`).textContent()).toBe(
      HOSTILE_TITLE,
    );
    await page.goto(`${engine.url}/ui#/session/${SESSION_ID}/tree`);
    await page.locator('.context-chart[data-turns="7"]').waitFor();
    expect(await page.locator('.session-heading h1').textContent()).toBe(HOSTILE_TITLE);
    expect(await page.locator('.context-chart .chart-models').textContent()).toContain(
      `hostile/${HOSTILE_MODEL}`,
    );
    const pointTitle = await page
      .locator('.context-chart circle.chart-point')
      .nth(2)
      .locator('title')
      .textContent();
    expect(pointTitle).toContain(`hostile/${HOSTILE_MODEL}`);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('.context-chart svg svg').count()).toBe(0);
    expect(browser.pageErrors).toEqual([]);
  });
});
