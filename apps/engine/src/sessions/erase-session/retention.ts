// Retention (issue 14, item 5): the settings' `retention: {tenant: days}` erases a tenant's
// sessions whose last event is older than that, through the same audited erasure as
// `DELETE /sessions/{id}` (actor `strata-retention`, the rule in the reason). Each pass is bounded
// and shared fairly: every tenant with a rule gets an equal part of the pass. A session another
// engine erased meanwhile is skipped, so several engines on one store never erase one twice.
import type { ErasureRecord, EventStore } from '@strata/event-store';
import type { ErasureSigner } from '@strata/integrity';
import type { CatalogSession } from '@strata/projections';
import { SessionNotFoundError } from '@strata/session-files';
import { eraseSession, SessionErasedError } from '../../shared/session-erasure';

export const RETENTION_ACTOR = 'strata-retention';
/** Sessions one pass erases at most, shared between the tenants with a rule. */
export const DEFAULT_RETENTION_BATCH = 100;
const DAY_MS = 86_400_000;

/** What retention needs of an idle session (the catalog's documents have more). */
export type IdleSession = Pick<CatalogSession, 'sessionId' | 'lastActivityAt'>;

/** Finds a tenant's sessions idle since before a time, longest idle first (the catalog). */
export type IdleSessionFinder = (
  tenant: string,
  idleBefore: string,
  limit: number,
) => Promise<readonly IdleSession[]>;

export interface RetentionCandidate {
  readonly sessionId: string;
  readonly tenant: string;
  readonly lastActivityAt: string;
  readonly days: number;
  readonly reason: string;
}

export interface RetentionPassResult {
  readonly candidate: RetentionCandidate;
  /** The record written, or `skipped` when the session was erased or gone meanwhile. */
  readonly outcome:
    { readonly kind: 'erased'; readonly record: ErasureRecord } | { readonly kind: 'skipped' };
}

export function retentionReason(tenant: string, days: number): string {
  return `retention: sessions of tenant ${tenant} idle for more than ${days} days (settings retention.${tenant} = ${days})`;
}

/**
 * The sessions a pass would erase now: for each tenant with a rule (in the order given, which
 * the caller rotates between passes), at most an equal part of `batch`.
 */
export async function retentionCandidates(
  rules: Readonly<Record<string, number>>,
  now: number,
  findIdle: IdleSessionFinder,
  batch: number,
  tenantOrder: readonly string[] = Object.keys(rules).sort(),
): Promise<readonly RetentionCandidate[]> {
  const tenants = tenantOrder.filter((tenant) => rules[tenant] !== undefined);
  if (tenants.length === 0 || batch <= 0) return [];
  const share = Math.max(1, Math.floor(batch / tenants.length));
  const candidates: RetentionCandidate[] = [];
  for (const tenant of tenants) {
    const remaining = batch - candidates.length;
    if (remaining <= 0) break;
    const days = rules[tenant]!;
    const idleBefore = new Date(now - days * DAY_MS).toISOString();
    for (const session of await findIdle(tenant, idleBefore, Math.min(share, remaining))) {
      candidates.push({
        sessionId: session.sessionId,
        tenant,
        lastActivityAt: session.lastActivityAt,
        days,
        reason: retentionReason(tenant, days),
      });
    }
  }
  return candidates;
}

/** Erases the candidates; a session erased or removed meanwhile is skipped. */
export async function eraseRetentionCandidates(
  store: EventStore,
  candidates: readonly RetentionCandidate[],
  signer?: ErasureSigner,
): Promise<readonly RetentionPassResult[]> {
  const results: RetentionPassResult[] = [];
  for (const candidate of candidates) {
    try {
      const record = await eraseSession(
        store,
        candidate.sessionId,
        {
          actor: RETENTION_ACTOR,
          reason: candidate.reason,
          tenant: candidate.tenant,
        },
        signer,
      );
      results.push({ candidate, outcome: { kind: 'erased', record } });
    } catch (error) {
      if (!(error instanceof SessionErasedError || error instanceof SessionNotFoundError)) throw error;
      results.push({ candidate, outcome: { kind: 'skipped' } });
    }
  }
  return results;
}
