// The charts of the sessions page: completed compactions per day (UTC) by trigger, from the audit
// (GET /attempts), and the tokens the answers reported by tenant and kind, from the catalog
// (GET /sessions): a key sees its own tenant's sessions only. Drawn as SVG through svg.ts: a
// tenant's name goes in as text.
import {
  axisTicks,
  compactionTriggers,
  shortCount,
  tokenKinds,
  type CompactionDay,
  type TenantTokens,
  type TokenKind,
} from './chart-data.js';
import type { AuditAttempt, SessionSummary } from '@strata/client/browser';
import { getJson, type QueryValues } from './api.js';
import { compactionsPerDay, tokensByTenant } from './chart-data.js';
import { element } from './dom.js';
import { formatCount } from './previews.js';
import { horizontalGrid, svg, svgText, svgTitle } from './svg.js';

const WIDTH = 760;
/** Pages read for the charts (each of the largest size), so a large tenant's page stays quick. */
const CHART_PAGE = 500;
const CHART_MAX_PAGES = 20;

const kindCaptions: Readonly<Record<TokenKind, string>> = {
  input: 'input',
  output: 'output',
  cacheRead: 'cache read',
  cacheWrite: 'cache write',
};

function legend(items: readonly (readonly [string, string])[]): HTMLElement {
  return element(
    'ul',
    { className: 'chart-legend' },
    items.map(([className, text]) => element('li', { className, text })),
  );
}

export function compactionsPerDayChart(days: readonly CompactionDay[], bounded: boolean): HTMLElement {
  const heading = element('h2', { text: 'Compactions per day' });
  const note = element('p', {
    className: 'muted chart-note',
    text:
      'Completed compaction attempts of the audit by the day they ended (UTC), by trigger' +
      (bounded ? '; from the latest attempts read only (the audit is longer).' : '.'),
  });
  if (days.length === 0) {
    return element('section', { className: 'chart compactions-chart', dataset: { days: '0' } }, [
      heading,
      element('p', { className: 'muted', text: 'No completed compaction in the audit.' }),
    ]);
  }
  const height = 200;
  const margin = { top: 10, right: 12, bottom: 28, left: 40 };
  const plotHeight = height - margin.top - margin.bottom;
  const ticks = axisTicks(Math.max(...days.map((day) => day.total)), 4, true);
  const top = ticks.at(-1) ?? 1;
  const band = (WIDTH - margin.left - margin.right) / days.length;
  const barWidth = Math.min(band * 0.7, 48);
  const y = (value: number): number => margin.top + plotHeight - (value / top) * plotHeight;
  const every = Math.max(1, Math.ceil(days.length / 8));
  const bars = days.map((day, position) => {
    let base = 0;
    const left = margin.left + position * band + (band - barWidth) / 2;
    const segments = compactionTriggers.map((trigger) => {
      const value = day.byTrigger[trigger];
      const segment = svg('rect', {
        x: left,
        y: y(base + value),
        width: barWidth,
        height: y(base) - y(base + value),
        class: `chart-bar trigger-${trigger}`,
      });
      base += value;
      return value > 0 ? segment : null;
    });
    const detail = compactionTriggers
      .filter((trigger) => day.byTrigger[trigger] > 0)
      .map((trigger) => `${day.byTrigger[trigger]} ${trigger}`)
      .join(', ');
    return svg('g', { class: 'chart-day', 'data-day': day.day, 'data-count': day.total }, [
      ...segments,
      svgTitle(
        `${day.day}: ${day.total} compaction${day.total === 1 ? '' : 's'}${detail === '' ? '' : ` (${detail})`}`,
      ),
      position % every === 0 || position === days.length - 1
        ? svgText(day.day.slice(5), {
            x: left + barWidth / 2,
            y: height - 8,
            'text-anchor': 'middle',
            class: 'chart-label',
          })
        : null,
    ]);
  });
  const grid = horizontalGrid(ticks, y, margin.left, WIDTH - margin.right, String);
  const chart = svg(
    'svg',
    {
      viewBox: `0 0 ${WIDTH} ${height}`,
      role: 'img',
      'aria-label': `Compactions on ${days.length} days`,
      class: 'chart-svg',
    },
    [...grid, ...bars],
  );
  return element(
    'section',
    { className: 'chart compactions-chart', dataset: { days: String(days.length) } },
    [
      heading,
      note,
      chart,
      legend(compactionTriggers.map((trigger) => [`legend-trigger-${trigger}`, trigger])),
    ],
  );
}

export function tokensByTenantChart(tenants: readonly TenantTokens[], bounded: boolean): HTMLElement {
  const heading = element('h2', { text: 'Tokens by tenant' });
  const note = element('p', {
    className: 'muted chart-note',
    text:
      "Tokens the sessions' answers reported (their usage, summed by the catalog), by kind; an API key sees its own tenant only" +
      (bounded ? '; from the first sessions read only.' : '.'),
  });
  if (tenants.length === 0) {
    return element('section', { className: 'chart tenants-chart', dataset: { tenants: '0' } }, [
      heading,
      element('p', { className: 'muted', text: 'No sessions.' }),
    ]);
  }
  const row = 30;
  const margin = { top: 8, right: 90, bottom: 24, left: 140 };
  const height = margin.top + margin.bottom + row * tenants.length;
  const plotWidth = WIDTH - margin.left - margin.right;
  const ticks = axisTicks(Math.max(...tenants.map((tenant) => sumOf(tenant))));
  const top = ticks.at(-1) ?? 1;
  const x = (value: number): number => margin.left + (value / top) * plotWidth;
  const rows = tenants.map((tenant, position) => {
    const rowTop = margin.top + position * row;
    let base = 0;
    const segments = tokenKinds.map((kind) => {
      const value = tenant.byKind[kind];
      const segment = svg('rect', {
        x: x(base),
        y: rowTop + 5,
        width: x(base + value) - x(base),
        height: row - 10,
        class: `chart-bar kind-${kind}`,
      });
      base += value;
      return value > 0 ? segment : null;
    });
    const detail = tokenKinds
      .map((kind) => `${formatCount(tenant.byKind[kind])} ${kindCaptions[kind]}`)
      .join(', ');
    return svg('g', { class: 'chart-tenant', 'data-tenant': tenant.tenant, 'data-total': tenant.total }, [
      svgText(tenant.tenant, {
        x: margin.left - 8,
        y: rowTop + row / 2 + 4,
        'text-anchor': 'end',
        class: 'chart-label chart-name',
      }),
      ...segments,
      svgText(shortCount(tenant.total), { x: x(base) + 6, y: rowTop + row / 2 + 4, class: 'chart-label' }),
      svgTitle(
        `${tenant.tenant}: ${formatCount(tenant.total)} tokens in ${formatCount(tenant.sessions)} sessions (${detail})`,
      ),
    ]);
  });
  const axis = ticks.map((tick) =>
    svgText(shortCount(tick), { x: x(tick), y: height - 6, 'text-anchor': 'middle', class: 'chart-label' }),
  );
  const chart = svg(
    'svg',
    {
      viewBox: `0 0 ${WIDTH} ${height}`,
      role: 'img',
      'aria-label': `Tokens of ${tenants.length} tenants`,
      class: 'chart-svg',
    },
    [...axis, ...rows],
  );
  return element(
    'section',
    { className: 'chart tenants-chart', dataset: { tenants: String(tenants.length) } },
    [heading, note, chart, legend(tokenKinds.map((kind) => [`legend-kind-${kind}`, kindCaptions[kind]]))],
  );
}

function sumOf(tenant: TenantTokens): number {
  return tokenKinds.reduce((sum, kind) => sum + tenant.byKind[kind], 0);
}

/** Every page of a cursor-paged list, at most CHART_MAX_PAGES; `bounded` when there was more. */
async function allPages<Item>(
  path: string,
  query: QueryValues,
): Promise<{ items: Item[]; bounded: boolean }> {
  const items: Item[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < CHART_MAX_PAGES; page += 1) {
    const answer = await getJson<{ items: readonly Item[]; nextCursor: string | null }>(path, {
      ...query,
      limit: CHART_PAGE,
      cursor,
    });
    items.push(...answer.items);
    cursor = answer.nextCursor ?? undefined;
    if (cursor === undefined) return { items, bounded: false };
  }
  return { items, bounded: true };
}

/** Reads the audit and the catalog, and draws both charts of the sessions page. */
export async function overviewCharts(): Promise<HTMLElement[]> {
  const [attempts, sessions] = await Promise.all([
    allPages<AuditAttempt>('/attempts', { kind: 'compaction', outcome: 'completed', order: 'newest_first' }),
    allPages<SessionSummary>('/sessions', {}),
  ]);
  return [
    compactionsPerDayChart(compactionsPerDay(attempts.items), attempts.bounded),
    tokensByTenantChart(tokensByTenant(sessions.items), sessions.bounded),
  ];
}
