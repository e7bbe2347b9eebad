// A compaction supplied from outside the engine's own summariser (a `session_before_compact`
// hook's answer): the reference stored it unchecked (defect 23), so it could keep a tool result
// without its call, or point at an entry the path does not hold.
import type { SessionEntry } from '../entries/entries';

/** The parts of a supplied compaction that decide whether it can be used. */
export interface SuppliedCompaction {
  readonly summary: unknown;
  readonly firstKeptEntryId: string;
  readonly tokensBefore: number;
}

/**
 * Why a supplied compaction cannot be used, or undefined when it can: its summary must be text,
 * its token count a whole non-negative number, and its first kept entry on the compacted path
 * and not a tool result.
 */
export function hookCompactionProblem(
  compaction: SuppliedCompaction,
  pathEntries: readonly SessionEntry[],
): string | undefined {
  if (typeof compaction.summary !== 'string') return 'its summary is not text';
  if (!Number.isInteger(compaction.tokensBefore) || compaction.tokensBefore < 0) {
    return `tokensBefore ${String(compaction.tokensBefore)} is not a non-negative integer`;
  }
  const firstKept = pathEntries.find((entry) => entry.id === compaction.firstKeptEntryId);
  if (!firstKept) return `first kept entry ${compaction.firstKeptEntryId} is not on the compacted path`;
  if (firstKept.type === 'message' && firstKept.message.role === 'toolResult') {
    return `first kept entry ${compaction.firstKeptEntryId} is a tool result`;
  }
  return undefined;
}
