// The items of the compaction and branch-summary timeline: every attempt the audit recorded, and
// the compaction and branch-summary entries without one (they came in with an imported file),
// ordered by time. Pure.
import type { AuditAttempt, SessionTree } from '@strata/client/browser';

export interface TimelineItem {
  readonly key: string;
  readonly kind: 'compaction' | 'branch_summary';
  readonly attempt: AuditAttempt | undefined;
  readonly entryId: string | undefined;
  /** The entry's append index, when it wrote one. */
  readonly entryIndex: number | undefined;
  readonly timestamp: string;
}

/** The attempts (in audit order) and the entries without an attempt, by time (stable for equal times). */
export function timelineItems(tree: SessionTree, attempts: readonly AuditAttempt[]): TimelineItem[] {
  const indexOf = new Map(tree.nodes.map((node, index) => [node.id, index]));
  const written = new Set(
    attempts.map((attempt) => attempt.entryId).filter((id): id is string => id !== null),
  );
  const items: TimelineItem[] = attempts.map((attempt) => ({
    key: `attempt:${attempt.attemptId}`,
    kind: attempt.kind,
    attempt,
    entryId: attempt.entryId ?? undefined,
    entryIndex: attempt.entryId !== null ? indexOf.get(attempt.entryId) : undefined,
    timestamp: attempt.startedAt,
  }));
  tree.nodes.forEach((node, index) => {
    if ((node.type !== 'compaction' && node.type !== 'branch_summary') || written.has(node.id)) return;
    items.push({
      key: `entry:${node.id}`,
      kind: node.type,
      attempt: undefined,
      entryId: node.id,
      entryIndex: index,
      timestamp: node.timestamp,
    });
  });
  const timeOf = (item: TimelineItem): number => {
    const parsed = Date.parse(item.timestamp);
    return Number.isNaN(parsed) ? 0 : parsed;
  };
  return items.sort((first, second) => timeOf(first) - timeOf(second));
}
