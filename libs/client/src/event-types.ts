// The public events of `GET /events` as plain TypeScript types (see api-types.ts for how they
// are written and checked).

/** The public names of session events on `GET /events`. */
export const eventNames = [
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

export type EventName = (typeof eventNames)[number];

/** One public event of the stream (the `data` of its frame). */
export interface StrataEvent {
  /** The SSE id: `<position>` or `<position>.<index>`; resume after it with Last-Event-ID. */
  readonly id: string;
  readonly name: EventName;
  readonly position: string;
  readonly index: number;
  readonly sessionId: string;
  readonly revision: string;
  readonly eventId: string;
  readonly recordedAt: string;
  readonly data: Readonly<Record<string, unknown>>;
}
