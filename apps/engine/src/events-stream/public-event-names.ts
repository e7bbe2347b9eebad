// The stable public names of session events (DESIGN.md decisions 8 and 9): what subscribers of
// the server-sent-events stream and `strata tail` see. The store's event types are internal and
// may evolve; these names and their payloads are the contract. The names of the reference's
// hooks (`session_compact`, `session_tree`, `auto_compaction_start`, `auto_compaction_end`) keep
// their meaning. One store event gives one public event, and a compaction attempt of an automatic
// trigger gives a second one (`auto_compaction_start` / `auto_compaction_end`) at index 1.
import type { SessionEventType } from '@strata/session';

export const publicEventNames = [
  'session_start',
  'entry_appended',
  'session_tree',
  'tool_outputs_pruned',
  'compaction_start',
  'session_compact',
  'compaction_skipped',
  'compaction_cancelled',
  'compaction_failed',
  'auto_compaction_start',
  'auto_compaction_end',
  'branch_summary_start',
  'branch_summary_skipped',
  'branch_summary_cancelled',
  'branch_summary_failed',
  'continuation_requested',
  'lease_taken',
  'lease_renewed',
  'lease_released',
  'lease_expired',
] as const;

export type PublicEventName = (typeof publicEventNames)[number];

export function isPublicEventName(name: string): name is PublicEventName {
  return (publicEventNames as readonly string[]).includes(name);
}

/** The public name of each store event (index 0), and the automatic-attempt name (index 1) when it applies. */
export const publicNamesOfStoreEvent: Readonly<
  Record<SessionEventType, { readonly primary: PublicEventName; readonly automatic?: PublicEventName }>
> = {
  SessionStarted: { primary: 'session_start' },
  EntryAppended: { primary: 'entry_appended' },
  LeafMoved: { primary: 'session_tree' },
  ToolOutputsPruned: { primary: 'tool_outputs_pruned' },
  CompactionStarted: { primary: 'compaction_start', automatic: 'auto_compaction_start' },
  CompactionCompleted: { primary: 'session_compact', automatic: 'auto_compaction_end' },
  CompactionSkipped: { primary: 'compaction_skipped', automatic: 'auto_compaction_end' },
  CompactionCancelled: { primary: 'compaction_cancelled', automatic: 'auto_compaction_end' },
  CompactionFailed: { primary: 'compaction_failed', automatic: 'auto_compaction_end' },
  BranchSummaryStarted: { primary: 'branch_summary_start' },
  BranchSummaryCompleted: { primary: 'session_tree' },
  BranchSummarySkipped: { primary: 'branch_summary_skipped' },
  BranchSummaryCancelled: { primary: 'branch_summary_cancelled' },
  BranchSummaryFailed: { primary: 'branch_summary_failed' },
  ContinuationRequested: { primary: 'continuation_requested' },
  LeaseTaken: { primary: 'lease_taken' },
  LeaseRenewed: { primary: 'lease_renewed' },
  LeaseReleased: { primary: 'lease_released' },
  LeaseExpired: { primary: 'lease_expired' },
};

/** The store event types that can give one of `names` (for the subscription's filter). */
export function storeTypesFor(names: ReadonlySet<PublicEventName>): SessionEventType[] {
  return (Object.keys(publicNamesOfStoreEvent) as SessionEventType[]).filter((type) => {
    const { primary, automatic } = publicNamesOfStoreEvent[type];
    return names.has(primary) || (automatic !== undefined && names.has(automatic));
  });
}

/** One line per name for the README and the docs: which store events it stands for. */
export function describeNameMapping(): Readonly<Record<PublicEventName, readonly string[]>> {
  const mapping = Object.fromEntries(publicEventNames.map((name) => [name, [] as string[]])) as Record<
    PublicEventName,
    string[]
  >;
  for (const [type, names] of Object.entries(publicNamesOfStoreEvent)) {
    mapping[names.primary].push(type);
    if (names.automatic !== undefined)
      mapping[names.automatic].push(`${type} (trigger threshold or overflow)`);
  }
  return mapping;
}
