// The pairing rule of live appends: a tool result is written only where it answers a call that
// is still pending on its path. A call is pending at an entry when the nearest assistant message
// on the path up to that entry made it and no result for it comes between that message and the
// entry (the rule the context builder applies, tool-call-pairing.ts, so an accepted result is
// never dropped or separated from its call). Imports keep what their file holds and skip it.
import type { SessionEntry } from '../entries/entries';
import { conflict } from './session-domain-error';
import type { ActiveSessionState } from './session-state';

type EntryLookup = (entryId: string) => SessionEntry | undefined;

/** The ids of the tool calls pending at `entryId` (none for null, or when no assistant message precedes it). */
export function pendingToolCallsAt(entryId: string | null, entryOf: EntryLookup): ReadonlySet<string> {
  const answered = new Set<string>();
  let current = entryId === null ? undefined : entryOf(entryId);
  while (current !== undefined) {
    if (current.type === 'message') {
      const { message } = current;
      if (message.role === 'assistant') {
        const pending = new Set<string>();
        for (const block of message.content) {
          if (block.type === 'toolCall' && !answered.has(block.id)) pending.add(block.id);
        }
        return pending;
      }
      if (message.role === 'toolResult') answered.add(message.toolCallId);
    }
    current = current.parentId === null ? undefined : entryOf(current.parentId);
  }
  return new Set();
}

/**
 * Refuses (conflict, `tool_result_unpaired`) the first tool result of the batch that answers no
 * call pending at its parent; earlier entries of the batch count as written. The batch's
 * parents are known (checked before).
 */
export function requirePairedToolResults(state: ActiveSessionState, entries: readonly SessionEntry[]): void {
  const batch = new Map<string, SessionEntry>();
  const entryOf: EntryLookup = (entryId) => batch.get(entryId) ?? state.getEntry(entryId);
  for (const entry of entries) {
    if (entry.type === 'message' && entry.message.role === 'toolResult') {
      const { toolCallId } = entry.message;
      if (!pendingToolCallsAt(entry.parentId, entryOf).has(toolCallId)) {
        throw conflict(
          `tool result ${entry.id} answers ${toolCallId}, which is not a call pending at ${entry.parentId ?? 'the root'}`,
          { reason: 'tool_result_unpaired', entryId: entry.id, parentId: entry.parentId, toolCallId },
        );
      }
    }
    batch.set(entry.id, entry);
  }
}
