// What the viewer's charts show, computed from the API's answers (pure, no DOM): compactions per
// day (UTC) by trigger from the audit, tokens by tenant and kind from the catalog, and the axis
// ticks of a chart. The SVG is drawn by charts.ts.
import type { AuditAttempt, CompactionTrigger, SessionSummary } from '@strata/client/browser';

export const compactionTriggers: readonly CompactionTrigger[] = ['threshold', 'overflow', 'manual'];

export interface CompactionDay {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string;
  readonly total: number;
  readonly byTrigger: Readonly<Record<CompactionTrigger, number>>;
}

const DAY_MS = 86_400_000;

/**
 * Completed compactions by the UTC day they ended, every day from the first to the last (days
 * without one count 0), at most the latest `maxDays`.
 */
export function compactionsPerDay(attempts: readonly AuditAttempt[], maxDays = 60): CompactionDay[] {
  const counts = new Map<string, Record<CompactionTrigger, number>>();
  for (const attempt of attempts) {
    if (attempt.kind !== 'compaction' || attempt.outcome !== 'completed' || attempt.endedAt === null)
      continue;
    const day = attempt.endedAt.slice(0, 10);
    const byTrigger = counts.get(day) ?? { threshold: 0, overflow: 0, manual: 0 };
    byTrigger[attempt.trigger ?? 'manual'] += 1;
    counts.set(day, byTrigger);
  }
  const days = [...counts.keys()].sort();
  const first = days[0];
  const last = days.at(-1);
  if (first === undefined || last === undefined) return [];
  const lastMs = Date.parse(`${last}T00:00:00Z`);
  const firstMs = Math.max(Date.parse(`${first}T00:00:00Z`), lastMs - (maxDays - 1) * DAY_MS);
  const series: CompactionDay[] = [];
  for (let ms = firstMs; ms <= lastMs; ms += DAY_MS) {
    const day = new Date(ms).toISOString().slice(0, 10);
    const byTrigger = counts.get(day) ?? { threshold: 0, overflow: 0, manual: 0 };
    series.push({ day, total: byTrigger.threshold + byTrigger.overflow + byTrigger.manual, byTrigger });
  }
  return series;
}

export const tokenKinds = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;
export type TokenKind = (typeof tokenKinds)[number];

export interface TenantTokens {
  readonly tenant: string;
  readonly sessions: number;
  readonly total: number;
  readonly byKind: Readonly<Record<TokenKind, number>>;
}

/** The usage the sessions' answers reported, summed by tenant, largest total first. */
export function tokensByTenant(sessions: readonly SessionSummary[]): TenantTokens[] {
  const tenants = new Map<string, { sessions: number; total: number; byKind: Record<TokenKind, number> }>();
  for (const session of sessions) {
    const found = tenants.get(session.tenant) ?? {
      sessions: 0,
      total: 0,
      byKind: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    };
    found.sessions += 1;
    found.total += session.usage.totalTokens;
    for (const kind of tokenKinds) found.byKind[kind] += session.usage[kind];
    tenants.set(session.tenant, found);
  }
  return [...tenants.entries()]
    .map(([tenant, figures]) => ({ tenant, ...figures }))
    .sort((a, b) => b.total - a.total || a.tenant.localeCompare(b.tenant));
}

/** Round tick values from 0 to at least `max` (1, 2 or 5 times a power of ten apart; whole for counts). */
export function axisTicks(max: number, wanted = 4, whole = false): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / wanted;
  const power = 10 ** Math.floor(Math.log10(rough));
  const round = ([1, 2, 5, 10].find((factor) => factor * power >= rough) ?? 10) * power;
  const step = whole ? Math.max(1, round) : round;
  const ticks: number[] = [];
  for (let value = 0; value < max + step; value += step) ticks.push(value);
  return ticks;
}

/** `12k`, `1.5M`: a short token count for an axis. */
export function shortCount(value: number): string {
  if (value >= 1_000_000) return `${trim(value / 1_000_000)}M`;
  if (value >= 1_000) return `${trim(value / 1_000)}k`;
  return String(value);
}

function trim(value: number): string {
  return value >= 100 ? value.toFixed(0) : String(Number(value.toFixed(1)));
}
